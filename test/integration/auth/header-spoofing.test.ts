/**
 * Client-supplied identity headers on every kind of route: whatever the spelling (case, `_` for
 * `-`), however often, and when listed in `Connection`, the upstream sees only the identity the
 * gateway verified, or none at all.
 */
import t from 'tap'
import type { RecordedRequest } from '../../../demo/runtime/index.js'
import { startGateway, type TestGateway } from '../../helpers/gateway.js'
import { rawExchange, rawRequestHead, type RawResult } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { jConfig, jwt, sConfig, withDatabase } from '../../conformance/fixtures.js'

const runtime = await startRuntime(t)
const J = await startGateway(t, { ...jConfig({}, withDatabase(t)), upstream: { url: runtime.url } })
const S = await startGateway(t, { ...sConfig(), upstream: { url: runtime.url } })
const alice = await jwt(['agents:read'], { sub: 'alice' })

/**
 * Every spelling of every identity header a client might try, some twice; `listed` also names some
 * of them in `Connection`, which must not take the verified values away with the client's.
 */
function spoofed(connection: string, listed = false): string[] {
  return [
    'Host: portcullis.test',
    `Connection: ${connection}${listed ? ', X-Auth-User-Id, X-User-ID, X_Auth_Scopes' : ''}`,
    'X-Auth-User-Id: mallory',
    'x-auth-user-id: mallory-2',
    'X_Auth_User_Id: mallory-3',
    'X-AUTH-SCOPES: ["os:admin"]',
    'X_Auth_Scopes: ["os:admin"]',
    'X-Auth-Kind: security_key',
    'X-Auth-Session-Id: forged-session',
    'X-Auth-Service-Account: forged',
    'X-User-ID: mallory',
    'x-user-id: mallory-2',
    'X_User_Id: mallory-3',
    'X-Remote-User: mallory',
    'x_remote_user: mallory-2',
    'X-REMOTE-USER: mallory-3',
    'X-Forwarded-User: mallory',
  ]
}

const IDENTITY = /^(x-auth-|x-user-id$|x-remote-user$|x-forwarded-user$)/

/** Identity fields the upstream received: normalized name → every value, in order. */
function identityOf(
  headers: readonly string[] | Record<string, unknown>,
): Record<string, string[]> {
  const pairs: [string, string][] = Array.isArray(headers)
    ? headers.flatMap((name, index) =>
        index % 2 === 0 ? [[name, String(headers[index + 1])] as [string, string]] : [],
      )
    : Object.entries(headers).map(([name, value]) => [name, String(value)])
  const seen: Record<string, string[]> = {}
  for (const [name, value] of pairs) {
    const normalized = name.toLowerCase().replaceAll('_', '-')
    if (IDENTITY.test(normalized)) (seen[normalized] ??= []).push(value)
  }
  return seen
}

const VERIFIED_ALICE = {
  'x-auth-kind': ['jwt'],
  'x-auth-scopes': ['["agents:read"]'],
  'x-auth-user-id': ['alice'],
  'x-user-id': ['alice'],
}

async function send(
  gateway: TestGateway,
  method: string,
  path: string,
  lines: string[],
): Promise<{ reply: RawResult; upstream: RecordedRequest | undefined }> {
  runtime.clear()
  const reply = await rawExchange(gateway.port, rawRequestHead(method, path, lines))
  if (runtime.requests.length > 1) throw new Error('more than one upstream request')
  return { reply, upstream: runtime.requests[0] }
}

const withCredential = (token: string, listed = false) => [
  ...spoofed('close', listed),
  `Authorization: Bearer ${token}`,
]
const VARIANTS = [
  ['', false],
  [' (names listed in Connection)', true],
] as const

void t.test('a mapped route: only the verified identity arrives', async (t) => {
  for (const [variant, listed] of VARIANTS) {
    const { reply, upstream } = await send(J, 'GET', '/agents/a1', withCredential(alice, listed))
    t.equal(reply.status, 200)
    t.same(identityOf(upstream?.rawHeaders ?? []), VERIFIED_ALICE, `verified only${variant}`)
    const sent = (upstream?.rawHeaders ?? []).filter((_, index) => index % 2 === 0)
    t.same(
      sent.filter((name) => IDENTITY.test(name.toLowerCase())).sort(),
      Object.keys(VERIFIED_ALICE).sort(),
      `the verified fields arrive under their lowercase names${variant}`,
    )
  }
})

void t.test('an unmapped route: only the verified identity arrives', async (t) => {
  for (const [variant, listed] of VARIANTS) {
    const { reply, upstream } = await send(J, 'GET', '/echo/spoof', withCredential(alice, listed))
    t.equal(reply.status, 200)
    t.same(identityOf(upstream?.rawHeaders ?? []), VERIFIED_ALICE, `verified only${variant}`)
    t.equal(upstream?.headers.authorization, undefined, 'nor the credential')
  }
})

void t.test('an excluded route: no identity at all, with a valid token or none', async (t) => {
  for (const [variant, listed] of VARIANTS) {
    const { reply, upstream } = await send(J, 'GET', '/health', withCredential(alice, listed))
    t.equal(reply.status, 200)
    t.same(identityOf(upstream?.rawHeaders ?? []), {}, `none${variant}`)
    const anonymous = await send(J, 'GET', '/info', spoofed('keep-alive', listed))
    t.equal(anonymous.reply.status, 200)
    t.same(identityOf(anonymous.upstream?.rawHeaders ?? []), {}, `none, anonymous${variant}`)
  }
})

void t.test('an OPTIONS preflight: no identity at all', async (t) => {
  for (const [variant, listed] of VARIANTS) {
    const lines = [
      ...spoofed('close', listed),
      'Origin: http://localhost:3000',
      'Access-Control-Request-Method: GET',
    ]
    const { upstream } = await send(J, 'OPTIONS', '/agents', lines)
    t.equal(upstream?.method, 'OPTIONS', 'forwarded')
    t.same(identityOf(upstream?.rawHeaders ?? []), {}, `none${variant}`)
  }
})

void t.test(
  'a WebSocket upgrade: only the verified identity reaches the upstream socket',
  async (t) => {
    for (const [variant, listed] of VARIANTS) {
      runtime.clear()
      const lines = [
        ...spoofed('Upgrade', listed),
        'Upgrade: websocket',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        `Authorization: Bearer ${alice}`,
      ]
      const reply = await rawExchange(J.port, rawRequestHead('GET', '/ws/echo', lines))
      t.equal(reply.status, 101)
      const seen = identityOf(runtime.wsConnections[0]?.headers ?? {})
      t.same(seen, VERIFIED_ALICE, `verified only${variant}`)
      const refused = await rawExchange(
        J.port,
        rawRequestHead('GET', '/ws/echo', lines.slice(0, -1)),
      )
      t.equal(refused.status, 401, 'spoofed headers are no credential')
      t.equal(runtime.wsConnections.length, 1)
    }
  },
)

void t.test(
  '/service-accounts: answered by the gateway from the verified principal only',
  async (t) => {
    const reader = await send(J, 'GET', '/service-accounts', withCredential(alice))
    t.equal(reader.reply.status, 403, 'X-Auth-Scopes: ["os:admin"] grants nothing')
    t.same(JSON.parse(reader.reply.body), {
      detail: 'Insufficient permissions. Required scope(s): service_accounts:read',
    })
    t.equal(reader.upstream, undefined)
    const admin = await jwt(['os:admin'], { sub: 'root' })
    const body = JSON.stringify({ name: 'spoof-check', scopes: [{ scope: 'agents:run' }] })
    const lines = [
      ...withCredential(admin),
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
    ]
    runtime.clear()
    const minted = await rawExchange(
      J.port,
      `${rawRequestHead('POST', '/service-accounts', lines)}${body}`,
    )
    t.equal(minted.status, 201)
    t.match(JSON.parse(minted.body), { user_id: 'root', created_by: 'root' }, 'not mallory')
    t.equal(runtime.requests.length, 0, 'never forwarded')
  },
)

void t.test(
  'a caller without a user id (security key): our X-Auth-* only; its X-User-ID is passed on as AgentOS honours it, a reserved one refused',
  async (t) => {
    const { reply, upstream } = await send(S, 'GET', '/agents', [
      ...spoofed('close').filter((line) => !/^x[-_]user[-_]id/i.test(line)),
      'X-User-ID: bob',
      'Authorization: Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
    ])
    t.equal(reply.status, 200)
    t.same(identityOf(upstream?.rawHeaders ?? []), {
      'x-auth-kind': ['security_key'],
      'x-user-id': ['bob'],
    })
    for (const line of [
      'X-User-ID: sa:mallory',
      'X_User_Id: __scheduler__',
      'x-user-id: __oauth__:c',
    ]) {
      const reserved = await send(S, 'GET', '/agents', [
        'Host: portcullis.test',
        line,
        'Authorization: Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
      ])
      t.equal(reserved.reply.status, 403, line)
      t.same(JSON.parse(reserved.reply.body), {
        detail: 'Client-supplied user_id may not claim a reserved principal',
      })
      t.equal(reserved.upstream, undefined)
    }
  },
)

void t.test(
  'a WebSocket upgrade to an excluded route: no identity at all (regression: upgrade gate marks it public)',
  async (t) => {
    const excluded = await startGateway(t, {
      ...jConfig({ excluded_route_paths: ['/', '/health', '/info', '/ws/echo'] }),
      upstream: { url: runtime.url },
    })
    runtime.clear()
    const lines = [
      ...spoofed('Upgrade'),
      'Upgrade: websocket',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
    ]
    const reply = await rawExchange(excluded.port, rawRequestHead('GET', '/ws/echo', lines))
    t.equal(reply.status, 101, 'excluded: no credential needed')
    t.same(identityOf(runtime.wsConnections[0]?.headers ?? {}), {})
  },
)
