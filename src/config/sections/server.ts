import { BlockList, isIP } from 'node:net'
import { z } from 'zod'
import { AGENTOS_LINES } from '../../policy/catalogue/agentos-line.js'

const cidr = z
  .string()
  .refine(isCidrOrAddress, { message: 'must be an IP address or CIDR block (10.0.0.0/8, ::1/128)' })

export function isCidrOrAddress(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (bits === undefined) return true
  if (!/^\d{1,3}$/.test(bits)) return false
  const prefix = Number(bits)
  try {
    new BlockList().addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6')
    return true
  } catch {
    return false
  }
}

const port = z.number().int().min(0).max(65535)

export const serverSchema = z
  .strictObject({
    host: z.string().default('0.0.0.0').describe('Address the proxy listener binds to.'),
    port: port.default(8080).describe('Port of the proxy listener (clients and AgentOS traffic).'),
    admin_host: z
      .string()
      .default('127.0.0.1')
      .describe(
        'Address the admin listener (/healthz, /readyz, unauthenticated /metrics) binds to. Loopback by default: in a container or pod, set the address probes and Prometheus reach (`0.0.0.0`, or the pod IP); the Helm chart does.',
      ),
    admin_port: port
      .default(9090)
      .describe('Port of the admin listener. Separate because the upstream owns GET /metrics.'),
    trusted_proxies: z
      .array(cidr)
      .default([])
      .describe(
        'Peers (IP or CIDR) whose X-Forwarded-For/-Proto/-Host and Forwarded are believed, and whose X-Request-Id is kept when well-formed and not token-shaped. Empty: only the socket peer counts.',
      ),
    headers_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('Time a client has to send the complete request headers (slowloris bound).'),
    request_timeout_ms: z
      .number()
      .int()
      .min(0)
      .default(300_000)
      .describe('Time a client has to send the whole request including its body; 0 disables.'),
    keep_alive_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(5_000)
      .describe('Idle time before a client keep-alive connection is closed.'),
    max_header_bytes: z
      .number()
      .int()
      .min(1024)
      .max(65_536)
      .default(16_384)
      .describe('Largest accepted request header block; larger requests get 431.'),
    max_headers_count: z
      .number()
      .int()
      .min(16)
      .default(100)
      .describe('Most header fields accepted per request; a request with more gets 431.'),
    max_body_bytes: z
      .number()
      .int()
      .positive()
      .default(1_048_576)
      .describe(
        'Largest body the gateway itself parses (JSON, url-encoded forms, MCP messages); larger ones get 413. Multipart files stream through and are not limited by this.',
      ),
    max_json_depth: z
      .number()
      .int()
      .min(2)
      .max(1_000)
      .default(128)
      .describe(
        'Deepest nesting of arrays and objects in a JSON body or frame the gateway parses (/service-accounts, MCP, A2A, AG-UI, the workflow WebSocket); deeper ones are refused with 400 (1003 on the workflow WebSocket).',
      ),
    max_websocket_connections: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe(
        'Most WebSocket connections (open or in handshake) the gateway holds at once; further upgrades get 503.',
      ),
    max_websocket_connections_per_client: z
      .number()
      .int()
      .positive()
      .default(256)
      .describe(
        'Most WebSocket connections (open or in handshake) from one client address (IPv6 by /64; behind a load balancer set trusted_proxies); further upgrades get 429.',
      ),
    websocket_idle_timeout_ms: z
      .number()
      .int()
      .min(0)
      .default(600_000)
      .describe(
        'A WebSocket with no traffic in either direction (frames, pings) for this long is closed with 1001; 0 never closes it.',
      ),
    max_websocket_message_bytes: z
      .number()
      .int()
      .min(1_024)
      .default(4_194_304)
      .describe(
        'Largest client frame relayed on a WebSocket (the default matches the relay buffer that pauses a slow reader); a larger one closes the connection with 1009. The workflow WebSocket has its own interfaces.workflow_websocket.max_message_bytes.',
      ),
    watch_config: z
      .boolean()
      .default(false)
      .describe(
        'Reload the config file when it changes, as on SIGHUP: a valid file replaces the running config for new requests; an invalid one is refused and logged.',
      ),
    shutdown_grace_ms: z
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe(
        'On SIGTERM/SIGINT, how long in-flight requests may take to finish before sockets are closed.',
      ),
  })
  .prefault({})

export const upstreamSchema = z
  .strictObject({
    url: z
      .url({
        protocol: /^https?$/,
        error: 'must be an http:// or https:// URL such as http://127.0.0.1:7777',
      })
      .default('http://127.0.0.1:7777')
      .describe('Base URL of the agent runtime (AgentOS) that Portcullis protects.'),
    connect_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(5_000)
      .describe('Timeout for opening a connection to the upstream (→ 504).'),
    response_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(300_000)
      .describe(
        'Time the upstream has to start its response (→ 504). Non-streamed agent runs can take minutes.',
      ),
    idle_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(300_000)
      .describe('Longest silence inside a streamed upstream response before it is aborted.'),
    max_connections: z
      .number()
      .int()
      .positive()
      .default(256)
      .describe('Keep-alive connection pool size towards the upstream.'),
    preserve_host: z
      .boolean()
      .default(false)
      .describe(
        "Forward the client's Host header. Off: Host is the upstream's, and the original goes in X-Forwarded-Host.",
      ),
    agentos_version: z
      .enum(['auto', ...AGENTOS_LINES], {
        error: `must be auto or one of the AgentOS lines ${AGENTOS_LINES.map((line) => `"${line}"`).join(', ')} (quoted: YAML reads 3.0 as a number)`,
      })
      .default('auto')
      .describe(
        'The AgentOS release line whose route catalogue decides requests. auto: read from the upstream at start and whenever it may have restarted (GET /info, else the routes of GET /openapi.json); a version no catalogue covers, or an answer that cannot be read, stops the start (exit 2) and, later, makes proxied requests 503. A line: used at once; the upstream is still read, and when it reports something else a warning is logged and auth.deny_unmapped_routes defaults to true.',
      ),
  })
  .prefault({})
