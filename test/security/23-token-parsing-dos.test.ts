/**
 * Attack class 23 — token-parsing DoS: huge tokens, thousands of dots, deeply nested JSON
 * (CVE-2025-30204 golang-jwt, CVE-2025-27144 go-jose, envoy#14341). A credential is capped at
 * `auth.max_token_bytes` before it is parsed and the header block at `server.max_header_bytes`
 * (431); what fits is parsed without recursion. Every shape is a 401, never a 500 or a hang,
 * over HTTP, an upgrade and the workflow socket's authenticate frame, with `validate: false` too.
 */
import t from 'tap'
import { base64url, signJwt } from '../helpers/jwt.js'
import { startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { bearer, jwt, K, refused, securedGateway, send, upgrade, wsUrl } from './harness.js'

const runtime = await startRuntime(t)
const interfaces = { workflow_websocket: { enabled: true } }
const verified = await securedGateway(t, runtime, { interfaces })
const unverified = await securedGateway(t, runtime, {
  auth: { validate: false, dependencies_claims: ['deep'] },
  interfaces,
})
const exp = Math.floor(Date.now() / 1000) + 600
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
const part = (text: string) => base64url(text)

const shapes: [string, string][] = [
  [
    'just above max_token_bytes, correctly signed',
    await jwt(['agents:read'], { claims: { pad: 'x'.repeat(8_200) } }),
  ],
  ['9 000 characters of one segment', `${'a'.repeat(9_000)}.b.c`],
  ['4 000 dots', '.'.repeat(4_000)],
  ['2 000 segments', Array<string>(2_000).fill('e30').join('.')],
  [
    'a header nested 2 000 arrays deep',
    `${part(`{"alg":"HS256","x":${nested(2_000)}}`)}.${part('{}')}.AAAA`,
  ],
  [
    'a header nested 1 000 objects deep',
    `${part(`{"alg":"HS256","x":${objects(1_000)}}`)}.${part('{}')}.AAAA`,
  ],
  [
    'a payload nested 2 000 arrays deep',
    `${part('{"alg":"HS256"}')}.${part(`{"x":${nested(2_000)}}`)}.AAAA`,
  ],
  [
    'a passed-on claim nested 2 000 deep',
    `${part('{"alg":"HS256"}')}.${part(`{"deep":${nested(2_000)}}`)}.AAAA`,
  ],
  [
    'a payload that is one huge number',
    `${part('{"alg":"HS256"}')}.${part(`{"exp":1${'0'.repeat(400)}}`)}.AAAA`,
  ],
  ['exp beyond a double', `${part('{"alg":"HS256"}')}.${part('{"exp":1e400}')}.AAAA`],
  [
    'thousands of unicode escapes',
    `${part(`{"alg":"HS256","x":"${'\\u0000'.repeat(1_000)}"}`)}.${part('{}')}.AAAA`,
  ],
  ['not base64url at all', '%%%.%%%.%%%'],
  ['a lone surrogate', `${part('{"alg":"HS256"}')}.${part('{"sub":"\\ud800"}')}.AAAA`],
]

for (const [name, gateway] of [
  ['verified', verified],
  ['validate: false', unverified],
] as const) {
  void t.test(`${name}: every shape is a 401 (or 431), never a 500`, async (t) => {
    const socket = await WsClient.open(t, wsUrl(gateway, '/workflows/ws'))
    await socket.next()
    for (const [what, token] of shapes) {
      const http = await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)])
      // validate: false reads claims unchecked, so a decodable shape passes as an unscoped caller.
      if (name === 'verified') refused(t, http, 401, undefined, what)
      else t.ok([401, 403].includes(http.status), `${what}: ${http.status}`)
      t.not(
        (await upgrade(gateway, runtime, '/ws/echo', [bearer(token)])).status,
        500,
        `${what}: upgrade`,
      )
      socket.socket.send(JSON.stringify({ action: 'authenticate', token }))
      t.match(
        JSON.parse(String((await socket.next()).data)),
        { event: /^auth(enticated|_error)$/ },
        `${what}: in band`,
      )
    }
    const huge = await send(gateway, runtime, 'GET', '/agents/a1', [
      bearer(`${'a'.repeat(20_000)}.b.c`),
    ])
    refused(t, huge, 431, undefined, 'above server.max_header_bytes')
  })
}

void t.test(
  'the cap applies before verification: a correctly signed token over it is refused',
  async (t) => {
    const big = await signJwt(
      { sub: 'alice', scopes: ['agents:read'], exp, pad: 'x'.repeat(8_200) },
      { alg: 'HS256', key: K },
    )
    refused(
      t,
      await send(verified, runtime, 'GET', '/agents/a1', [bearer(big)]),
      401,
      'Invalid token: Token is too large',
    )
    const raised = await securedGateway(t, runtime, { auth: { max_token_bytes: 16_384 } })
    t.equal(
      (await send(raised, runtime, 'GET', '/agents/a1', [bearer(big)])).status,
      200,
      'a raised cap admits it',
    )
  },
)
