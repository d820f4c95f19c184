/**
 * Attack class 28 — claim parsing ambiguity (oauth2-proxy GHSA-c5c4-8r6x-56w3: an email with two
 * `@`). Scopes given as a list, a string, a space- or comma-delimited string, a number, a dict or
 * nested; duplicate JSON keys; prototype names; subjects of every type and one that tries to
 * inject a header. Corpus claims.txt, through the gateway, as the upstream sees the result.
 */
import t from 'tap'
import { signRawHs } from '../helpers/jwt.js'
import { startRuntime } from '../helpers/runtime.js'
import { bearer, corpus, K, refused, securedGateway, send, upgrade } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)
const PROBES: Record<string, string> = { a: '/agents/a1', t: '/teams/t1', c: '/config' }

void t.test('claims.txt', async (t) => {
  for (const [payload = '', expected = '', why = ''] of corpus('claims.txt')) {
    const token = signRawHs('{"alg":"HS256","typ":"JWT"}', payload, K)
    const wanted = Object.fromEntries(
      expected.split(' ').map((pair) => pair.split('=') as [string, string]),
    )
    for (const [probe, path] of Object.entries(PROBES)) {
      const status = Number(wanted[probe])
      const sent = await send(gateway, runtime, 'GET', path, [bearer(token)])
      if (status === 401 || status === 403) {
        refused(t, sent, status, undefined, `${why}: ${path}`)
        continue
      }
      t.equal(sent.status, status, `${why}: ${path}`)
      const user = sent.upstream[0]?.headers['x-auth-user-id']
      t.equal(user ?? '-', wanted.u, `${why}: X-Auth-User-Id`)
      t.equal(sent.upstream[0]?.headers['x-auth-kind'], 'jwt', `${why}: no injected field`)
    }
    if (wanted.a === '401')
      refused(
        t,
        await upgrade(gateway, runtime, '/ws/echo', [bearer(token)]),
        401,
        undefined,
        `${why}: upgrade`,
      )
  }
})
