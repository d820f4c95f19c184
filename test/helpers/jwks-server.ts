import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { generate } from 'selfsigned'
import type { Teardown } from './gateway.js'
import { fixtures } from './jwt.js'

/** The keys of the committed test JWKS (test/fixtures/keys/jwks.json). */
export function fixtureJwksKeys(): unknown[] {
  return (JSON.parse(readFileSync(fixtures.jwksPath, 'utf8')) as { keys: unknown[] }).keys
}

/** The `auth` keys that make a gateway fetch `server`'s JWKS: its URL, its CA, loopback allowed. */
export function remoteJwksAuth(server: JwksServer): Record<string, unknown> {
  return {
    jwks_url: server.jwksUrl,
    jwks_ca_file: server.caFile,
    jwks_allow_private_addresses: true,
  }
}

/** A throwaway CA and a server certificate it signed, for 127.0.0.1, ::1 and localhost. */
interface TestPki {
  readonly caPem: string
  readonly key: string
  readonly cert: string
}

let pki: Promise<TestPki> | undefined

/** Made once per test process: EC keys, valid for a day. */
function testPki(): Promise<TestPki> {
  pki ??= (async () => {
    const ca = await generate([{ name: 'commonName', value: 'Portcullis test CA' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    })
    const server = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    })
    return { caPem: ca.cert, key: server.private, cert: server.cert }
  })()
  return pki
}

/** How the server answers the JWKS path; every field can be changed while it runs. */
export interface JwksBehaviour {
  /** Sent as Cache-Control with the JWKS (and the discovery document); undefined: none. */
  cacheControl: string | undefined
  /** Answer 304 to a matching If-None-Match. */
  etags: boolean
  /** Wait this long before answering the JWKS. */
  delayMs: number
  /** Send the JWKS body this slowly: one byte per this many ms (0: at once). */
  trickleMs: number
  /** Answer the JWKS with this status and an empty body (0: normal). */
  status: number
  /** Send this instead of the key set (malformed or oversized documents). */
  body: string | undefined
  /** Leave Content-Length out (a chunked body). */
  chunked: boolean
}

export interface JwksServer {
  /** https://127.0.0.1:<port> */
  readonly origin: string
  readonly port: number
  /** The issuer whose discovery document is served: <origin>/realms/test */
  readonly issuer: string
  readonly jwksUrl: string
  /** A file holding the CA certificate (PEM), for auth.jwks_ca_file. */
  readonly caFile: string
  readonly behaviour: JwksBehaviour
  /** Publishes a new key set (a new ETag). */
  setKeys(keys: readonly unknown[]): void
  /** GET requests seen per path, and how many were conditional or answered 304. */
  count(path: string): number
  readonly conditional: number
  readonly notModified: number
  /** Closes the listener and every connection; `start()` listens again on the same port. */
  stop(): Promise<void>
  start(): Promise<void>
  /** Extra routes: path → handler. */
  route(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void
}

export const DISCOVERY_PATH = '/realms/test/.well-known/openid-configuration'
export const JWKS_PATH = '/realms/test/protocol/openid-connect/certs'

/**
 * A real HTTPS identity provider on loopback, port 0: an OpenID Connect discovery document and a
 * JWKS, with a certificate from a throwaway CA (written to a temporary file, removed at teardown).
 * It counts requests, answers conditional requests, and can be made slow, broken, or stopped.
 */
export async function startJwksServer(
  t: Teardown,
  keys: readonly unknown[],
  behaviour: Partial<JwksBehaviour> = {},
): Promise<JwksServer> {
  const { caPem, key, cert } = await testPki()
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-jwks-'))
  const caFile = join(dir, 'ca.pem')
  await writeFile(caFile, caPem)
  const state: JwksBehaviour = {
    cacheControl: undefined,
    etags: true,
    delayMs: 0,
    trickleMs: 0,
    status: 0,
    body: undefined,
    chunked: false,
    ...behaviour,
  }
  let document = JSON.stringify({ keys })
  let version = 1
  const counts = new Map<string, number>()
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>()
  let conditional = 0
  let notModified = 0
  let origin = ''
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const later = (ms: number, action: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      action()
    }, ms)
    timers.add(timer)
  }

  const answerJwks = (req: IncomingMessage, res: ServerResponse) => {
    const etag = `"jwks-${version}"`
    if (req.headers['if-none-match'] !== undefined) conditional += 1
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (state.cacheControl !== undefined) headers['cache-control'] = state.cacheControl
    if (state.etags) headers.etag = etag
    if (state.status !== 0) {
      res.writeHead(state.status, headers).end()
      return
    }
    if (state.etags && req.headers['if-none-match'] === etag && state.body === undefined) {
      notModified += 1
      res.writeHead(304, headers).end()
      return
    }
    const body = Buffer.from(state.body ?? document)
    if (!state.chunked) headers['content-length'] = String(body.length)
    res.writeHead(200, headers)
    if (state.trickleMs === 0) {
      res.end(body)
      return
    }
    let offset = 0
    const step = () => {
      if (res.destroyed) return
      if (offset >= body.length) {
        res.end()
        return
      }
      res.write(body.subarray(offset, offset + 1))
      offset += 1
      later(state.trickleMs, step)
    }
    step()
  }

  const server: Server = createServer({ key, cert }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    counts.set(path, (counts.get(path) ?? 0) + 1)
    const custom = routes.get(path)
    if (custom !== undefined) {
      custom(req, res)
    } else if (path === DISCOVERY_PATH) {
      const body = JSON.stringify({
        issuer: `${origin}/realms/test`,
        jwks_uri: `${origin}${JWKS_PATH}`,
        id_token_signing_alg_values_supported: ['RS256'],
      })
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(state.cacheControl === undefined ? {} : { 'cache-control': state.cacheControl }),
      })
      res.end(body)
    } else if (path === JWKS_PATH) {
      if (state.delayMs > 0) later(state.delayMs, () => answerJwks(req, res))
      else answerJwks(req, res)
    } else {
      res.writeHead(404).end()
    }
  })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('tlsClientError', () => undefined)

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      for (const socket of sockets) socket.destroy()
      if (!server.listening) {
        resolve()
        return
      }
      server.close(() => resolve())
    })

  await listen(0)
  const port = (server.address() as AddressInfo).port
  origin = `https://127.0.0.1:${port}`
  t.teardown(async () => {
    await stop()
    await rm(dir, { recursive: true, force: true })
  })
  return {
    origin,
    port,
    issuer: `${origin}/realms/test`,
    jwksUrl: `${origin}${JWKS_PATH}`,
    caFile,
    behaviour: state,
    setKeys(next) {
      document = JSON.stringify({ keys: next })
      version += 1
    },
    count: (path) => counts.get(path) ?? 0,
    get conditional() {
      return conditional
    },
    get notModified() {
      return notModified
    },
    stop,
    start: () => listen(port),
    route(path, handler) {
      routes.set(path, handler)
    },
  }
}
