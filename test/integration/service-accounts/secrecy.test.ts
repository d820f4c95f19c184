/**
 * A whole service-account scenario on two replicas (mint, use, fail, revoke, expire, throttle,
 * outage, recovery) with every log line captured at trace level: no plaintext token, no token
 * hash and no security key appears in any log line, response body (mints aside), /metrics or
 * /readyz output, or anything the upstream received. The scenario also moves every metric of the
 * issue's point 12.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { hashToken } from '../../../src/service-accounts/token-format.js'
import { sConfig, stack, type Reply, type Stack } from '../../conformance/fixtures.js'
import { sql } from '../../conformance/service-accounts/harness.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'
import { counter, pollUntil, replicaSection, storeCalls } from './cluster.js'

const KEY = `root-${randomBytes(24).toString('hex')}`

void t.test(
  'secrets stay secret over a whole scenario',
  { skip: postgresSkipReason() },
  async (t) => {
    const runtime = await startRuntime(t)
    const server = await startPostgres(t)
    const url = await server.createDatabase()
    const config = sConfig(replicaSection(url, {}, { auth: { security_key: KEY } }))
    const A = await stack(t, runtime, config)
    const B = await stack(t, runtime, config)
    const seen: string[] = [] // every body the clients got, mint 201s aside
    const tokens: string[] = []
    const keep = (reply: Reply): Reply => {
      seen.push(reply.text)
      return reply
    }
    const use = async (fixture: Stack, token: string, headers: Record<string, string> = {}) =>
      keep(await fixture.call('GET', '/sessions', { token, headers }))
    async function mintOn(fixture: Stack, name: string): Promise<{ id: string; token: string }> {
      const reply = await fixture.call('POST', '/service-accounts', {
        token: KEY,
        json: { name, scopes: [{ scope: 'sessions:read' }, { scope: 'agents:run' }] },
      })
      if (reply.status !== 201) throw new Error(`mint ${name}: ${reply.status} ${reply.text}`)
      const body = reply.body as { id: string; token: string }
      tokens.push(body.token)
      return body
    }

    // Mint, and use on both replicas, through the header with and without "Bearer".
    const user = await mintOn(A, 'user')
    const victim = await mintOn(B, 'victim')
    const expiring = await mintOn(A, 'expiring')
    const spare = await mintOn(B, 'spare')
    t.equal((await use(A, user.token)).status, 200)
    t.equal((await use(A, user.token)).status, 200, 'a cache hit')
    const bare = keep(await B.call('GET', '/sessions', { headers: { authorization: user.token } }))
    t.equal(bare.status, 200)
    const run = keep(
      await A.call('POST', '/agents/a1/runs', { token: user.token, form: { message: 'hi' } }),
    )
    t.equal(run.status, 200)
    t.equal((await use(A, victim.token)).status, 200, 'victim cached on A')
    t.equal((await use(A, expiring.token)).status, 200)

    // Fail: a typo of a real token, an unknown one, a wrong security key, API errors.
    const typo = `${user.token.slice(0, -2)}${user.token.endsWith('00') ? '11' : '00'}`
    t.equal((await use(A, typo)).status, 401)
    t.equal((await use(B, `svc_pat_${user.token.slice(8, 30)}`)).status, 401)
    t.equal((await use(A, `${KEY}x`)).status, 401)
    const conflict = keep(
      await A.call('POST', '/service-accounts', { token: KEY, json: { name: 'user' } }),
    )
    t.equal(conflict.status, 409)
    const invalid = keep(
      await A.call('POST', '/service-accounts', { token: KEY, json: { name: user.token } }),
    )
    t.equal(invalid.status, 422)
    seen.pop() // a 422 echoes its input; this one is the client's own text
    keep(await A.call('GET', '/service-accounts', { token: KEY }))

    // Revoke on B (A hears it), expire in the database, throttle on A.
    const revoked = keep(await B.call('DELETE', `/service-accounts/${victim.id}`, { token: KEY }))
    t.equal(revoked.status, 204)
    await pollUntil(async () => (await use(A, victim.token)).status === 401, 'A to refuse victim')
    await sql(A.gateway, 'UPDATE portcullis_service_accounts SET expires_at = 1 WHERE id = $1', [
      expiring.id,
    ])
    await pollUntil(async () => (await use(B, expiring.token)).status === 401, 'expired on B')
    for (let index = 0; index < 25; index += 1) await use(A, `svc_pat_${index}${typo.slice(10)}`)
    t.equal((await use(A, typo)).status, 429, 'throttled')

    // Outage and recovery.
    await server.stop()
    t.equal((await use(A, spare.token)).status, 503)
    t.equal(keep(await B.call('GET', '/service-accounts', { token: KEY })).status, 503)
    const unready = await fetch(`${A.gateway.adminUrl}/readyz`)
    seen.push(await unready.text())
    await server.start()
    await pollUntil(async () => (await use(B, spare.token)).status === 200, 'recovery')

    void t.test(
      'no token, hash or key in logs, bodies, metrics or upstream requests',
      async (t) => {
        const metrics = [await A.gateway.metrics(), await B.gateway.metrics()]
        for (const stack of [A, B]) stack.gateway.gateway.flushLogsForExit()
        const places: [string, string][] = [
          ['logs of A', A.gateway.logs.text],
          ['logs of B', B.gateway.logs.text],
          ['response bodies', seen.join('\n')],
          ['/metrics', metrics.join('\n')],
          ['upstream requests', JSON.stringify(runtime.requests)],
        ]
        t.ok(A.gateway.logs.lines.length > 50, `${A.gateway.logs.lines.length} lines logged by A`)
        t.match(A.gateway.logs.text, /"level":20/, 'debug lines were captured')
        t.match(A.gateway.logs.text, /service-account token rejected/, 'rejections were logged')
        t.match(A.gateway.logs.text, /service-account store unavailable/, 'the outage was logged')
        const secrets = tokens.flatMap((token) => {
          const hash = hashToken(token)
          return [
            [`token ${token.slice(0, 16)}…`, token.slice(16, 40)],
            [`hash of ${token.slice(0, 16)}…`, hash.slice(0, 32)],
            [`hash tail of ${token.slice(0, 16)}…`, hash.slice(32)],
          ]
        })
        secrets.push(['the security key', KEY.slice(5, 40)])
        for (const [where, text] of places) {
          const found = secrets.filter(
            ([, secret]) => secret !== undefined && text.includes(secret),
          )
          t.same(
            found.map(([what]) => what),
            [],
            `nothing secret in the ${where}`,
          )
        }
      },
    )

    void t.test('every metric of point 12 is exported and moved', async (t) => {
      const outcomes = 'portcullis_service_account_verifications_total'
      for (const reason of [
        'ok',
        'service_account.malformed',
        'service_account.expired',
        'service_account.revoked',
        'service_account.throttled',
        'service_account.unavailable',
      ]) {
        const total =
          (await counter(A.gateway, outcomes, { reason })) +
          (await counter(B.gateway, outcomes, { reason }))
        t.ok(total > 0, `verifications{reason="${reason}"} = ${total}`)
      }
      const moved = async (name: string, labels: Record<string, string> = {}) =>
        t.ok((await counter(A.gateway, name, labels)) > 0, `${name} ${JSON.stringify(labels)} on A`)
      await moved('portcullis_service_account_cache_hits_total')
      await moved('portcullis_service_account_cache_misses_total')
      await moved('portcullis_service_account_cache_evictions_total', { reason: 'revoked' })
      await moved('portcullis_service_account_throttled_requests_total')
      await moved('portcullis_service_account_revocation_notifications_total')
      await moved('portcullis_service_account_store_errors_total', {
        operation: 'find_by_token_hash',
        kind: 'unavailable',
      })
      t.ok((await storeCalls(A.gateway, 'find_by_token_hash')) > 0, 'store query latency observed')
      const buckets = 'portcullis_service_account_store_query_duration_seconds_bucket'
      const all = await counter(A.gateway, buckets, { operation: 'find_by_token_hash', le: '+Inf' })
      t.equal(all, await storeCalls(A.gateway, 'find_by_token_hash'), 'as a histogram')
    })
  },
)
