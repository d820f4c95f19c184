/**
 * Attack class 11 — identity-header spoofing through name variants (`X_User_Id`, `x-user-id`,
 * `X-USER-ID`, duplicates): oauth2-proxy CVE-2025-64484, Traefik header-underscores. Each variant
 * of corpus spoofed-headers.txt, alone and given twice, on every route kind over HTTP and
 * WebSocket: authenticated requests carry exactly the verified identity, public ones none.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { bearer, corpus, identityOf, jwt, securedGateway, verifiedIdentity } from './harness.js'
import { everyRoute, EXCLUDED_WS } from './route-kinds.js'

const runtime = await startRuntime(t)
const main = await securedGateway(t, runtime)
const excludedWs = await securedGateway(t, runtime, EXCLUDED_WS)
const SCOPES = ['agents:read', 'workflows:read']
const alice = bearer(await jwt(SCOPES, { sub: 'alice' }))
const STRIPPED =
  /^(x-auth-|x-user-id$|x-remote-user$|x-forwarded-(user|email|groups|preferred-username)$)/

for (const copies of [1, 2]) {
  void t.test(`every variant, ${copies === 1 ? 'once' : 'twice'}, on every route`, async (t) => {
    for (const [name = '', value = ''] of corpus('spoofed-headers.txt')) {
      const lines = Array<string>(copies).fill(`${name}: ${value}`)
      for (const delivery of await everyRoute({ main, excludedWs }, runtime, lines, [alice])) {
        const label = `${name} on ${delivery.label}`
        t.ok(delivery.received !== undefined, `${label}: forwarded`)
        const fields = delivery.received ?? new Map<string, string[]>()
        const identity = identityOf(Object.fromEntries(fields))
        const authenticated = delivery.kind === 'mapped' || delivery.kind === 'unmapped'
        t.same(identity, authenticated ? verifiedIdentity('alice', SCOPES) : {}, label)
        for (const field of fields.keys()) {
          if (STRIPPED.test(field) && !(field in identity)) t.fail(`${label}: ${field} passed`)
        }
      }
    }
  })
}

void t.test('all variants at once cannot add a second value to a verified field', async (t) => {
  const lines = corpus('spoofed-headers.txt').map(([name, value]) => `${name}: ${value}`)
  for (const delivery of await everyRoute({ main, excludedWs }, runtime, lines, [alice])) {
    const identity = identityOf(
      Object.fromEntries(delivery.received ?? new Map<string, string[]>()),
    )
    const authenticated = delivery.kind === 'mapped' || delivery.kind === 'unmapped'
    t.same(identity, authenticated ? verifiedIdentity('alice', SCOPES) : {}, delivery.label)
  }
})
