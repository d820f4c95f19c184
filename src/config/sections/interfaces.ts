import { z } from 'zod'

// A literal path of plain characters (it is matched and forwarded as is): no empty segment, no
// trailing `/`, nothing a template, a glob or percent-encoding would read differently.
const LITERAL_PATH = /^(\/[A-Za-z0-9._~:@!$&'()+,=-]+)+$/
const literalPath = z.string().regex(LITERAL_PATH, 'must be a literal path such as /a2a')
/** A mount prefix: a literal path, or `""` for the root. */
const prefix = z.union([z.literal(''), literalPath])

export const DEFAULT_MCP_PUBLIC_ROUTES = [
  '/.well-known/mcp/server-card.json',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
]

const workflowWebSocketSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Terminate the AgentOS workflow WebSocket in the gateway: in-band authentication frames, per-action workflows:run checks and user_id pinning, then a relay to the upstream. false relays it like any upgrade.',
      ),
    path: literalPath.default('/workflows/ws').describe('Path of the workflow WebSocket.'),
    auth_timeout_seconds: z
      .number()
      .min(0)
      .default(60)
      .describe(
        'When authentication is required, a connection still unauthenticated after this many seconds is closed with 1008; 0 never closes it.',
      ),
    max_message_bytes: z
      .number()
      .int()
      .min(1_024)
      .default(1_048_576)
      .describe(
        'Largest client frame the gateway parses; a larger one closes the connection (1009).',
      ),
  })
  .prefault({})

const mcpSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Inspect MCP JSON-RPC requests at `path`: per-tool scopes (MCP-6) and user_id pinning of tool arguments. false forwards them like any route.',
      ),
    path: literalPath.default('/mcp').describe('Path of the MCP streamable-HTTP endpoint.'),
    public_routes: z
      .array(z.string().startsWith('/'))
      .default(DEFAULT_MCP_PUBLIC_ROUTES)
      .describe(
        'MCP discovery documents that need no credential; added to the excluded routes (auth.excluded_route_paths or its defaults).',
      ),
    allowed_hosts: z
      .array(z.string().min(1))
      .nullable()
      .default(null)
      .describe(
        "Host names (no port; `*.example.com` for subdomains) allowed to reach the MCP endpoint. Unset: any host when a credential is required, only localhost when the gateway runs open (as AgentOS's DNS-rebinding guard).",
      ),
    allowed_origins: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Origins allowed on MCP requests besides those whose host is allowed; a request with another Origin gets 400 when the host guard is active.',
      ),
    resource_metadata_url: z
      .url()
      .nullable()
      .default(null)
      .describe(
        'OAuth protected-resource metadata URL: when set, a refused MCP request is a 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (throttling and outages included), as AgentOS under mcp_auth.',
      ),
  })
  .prefault({})

const a2aSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Protect the A2A interface: its scope mappings, X-User-ID and message metadata pinning, task ownership and the deprecated dynamic dispatch.',
      ),
    prefix: prefix
      .default('/a2a')
      .describe(
        'A2A mount prefix. Per-resource grants work on `/a2a` and `""`; any other prefix needs global or wildcard family grants.',
      ),
    catalog_ttl_seconds: z
      .number()
      .min(0)
      .default(30)
      .describe(
        'How long the upstream `GET /config` component list (used to resolve the family of `X-Agent-ID` on the deprecated message routes) is reused; 0 fetches it every time.',
      ),
  })
  .prefault({})

const aguiEndpoint = z.strictObject({
  prefix: prefix.describe('Mount prefix; the endpoint is `POST {prefix}/agui`.'),
  bound: z.enum(['agent', 'team']).describe('agent → agents:run, team → teams:run.'),
})

const aguiSchema = z
  .strictObject({
    endpoints: z
      .array(aguiEndpoint)
      .default([{ prefix: '', bound: 'agent' }])
      .describe(
        'AG-UI endpoints `{prefix, bound}`: `POST {prefix}/agui` needs agents:run (bound to an agent) or teams:run (bound to a team), and forwarded_props.user_id is pinned.',
      ),
  })
  .prefault({})

const webhooksSchema = z
  .strictObject({
    prefixes: z
      .array(literalPath)
      .default([])
      .describe(
        'Prefixes of self-authenticating interfaces (e.g. /slack, /telegram, /whatsapp): everything below them bypasses gateway authentication, identity headers still stripped. List only the interfaces the upstream runs.',
      ),
  })
  .prefault({})

export const interfacesSchema = z
  .strictObject({
    workflow_websocket: workflowWebSocketSchema.describe('The workflow WebSocket protocol.'),
    mcp: mcpSchema.describe('The MCP endpoint.'),
    a2a: a2aSchema.describe('The A2A interface.'),
    agui: aguiSchema.describe('AG-UI interfaces.'),
    webhooks: webhooksSchema.describe('Self-authenticating webhook interfaces.'),
  })
  .prefault({})
