/**
 * Failed-lookup throttling through the real gateway on PostgreSQL: per client address, the 21st
 * failure in the window is the first 429 (with Retry-After), a valid token passes (within the
 * lookup budget of a limited client),
 * X-Forwarded-For counts only from trusted proxies, IPv6 clients are grouped by /64.
 */
import t from 'tap'
import { ADMIN, jConfig, jwt, stack, type Stack } from '../../conformance/fixtures.js'
import { badToken, mint } from '../../conformance/service-accounts/harness.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'
import { counter, replicaSection } from './cluster.js'

const admin = await jwt([ADMIN], { sub: 'ops' })

interface Answer {
  readonly status: number
  readonly retryAfter: string | null
  readonly detail: unknown
}

/** GET /sessions with this token, optionally as forwarded for `xff`; by fetch, so IPv6 works. */
async function attempt(base: string, token: string, xff?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (xff !== undefined) headers['x-forwarded-for'] = xff
  const response = await fetch(`${base}/sessions`, { headers })
  const body = (await response.json()) as { detail?: unknown }
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    detail: Array.isArray(body) ? undefined : body.detail,
  }
}

async function failures(base: string, count: number, xff?: (index: number) => string) {
  const statuses: number[] = []
  for (let index = 0; index < count; index += 1) {
    statuses.push((await attempt(base, badToken(index), xff?.(index))).status)
  }
  return statuses
}

const fill = (count: number, status: number) => Array<number>(count).fill(status)

void t.test('throttling on PostgreSQL', { skip: postgresSkipReason() }, async (t) => {
  const runtime = await startRuntime(t)
  const server = await startPostgres(t)
  const gateway = async (more: Record<string, unknown> = {}): Promise<Stack> =>
    stack(t, runtime, jConfig({}, replicaSection(await server.createDatabase(), {}, more)))

  void t.test(
    '25 bad tokens: the 21st is the first 429, with Retry-After; a valid token from the same address → 200; untrusted X-Forwarded-For is ignored',
    async (t) => {
      const plain = await gateway()
      const valid = await mint(plain, admin, { name: 'valid' })
      const started = Date.now()
      const answers: Answer[] = []
      for (let index = 0; index < 25; index += 1) {
        answers.push(await attempt(plain.gateway.url, badToken(index), `198.51.100.${index}`))
      }
      t.same(
        answers.map((answer) => answer.status),
        [...fill(20, 401), ...fill(5, 429)],
      )
      t.same(answers[0]?.detail, 'Invalid or expired service account token')
      t.same(answers[20]?.detail, 'Too many failed authentication attempts')
      t.equal(answers[19]?.retryAfter, null, 'no Retry-After on a 401')
      const elapsed = Math.ceil((Date.now() - started) / 1000)
      for (const answer of answers.slice(20)) {
        const seconds = Number(answer.retryAfter)
        t.ok(
          Number.isInteger(seconds) && seconds <= 60 && seconds >= 60 - elapsed - 1,
          `Retry-After ${answer.retryAfter} is what is left of the 60 s window`,
        )
      }
      const ok = await attempt(plain.gateway.url, valid.token)
      t.equal(ok.status, 200, 'the valid token is not throttled')
      t.equal((await attempt(plain.gateway.url, badToken(0))).status, 429, 'failures still are')
      const outcomes = 'portcullis_service_account_verifications_total'
      const refusals = await Promise.all(
        ['service_account.unknown', 'service_account.malformed'].map((reason) =>
          counter(plain.gateway, outcomes, { reason }),
        ),
      )
      t.ok(
        refusals.every((count) => count > 0),
        'unknown and malformed tokens counted apart',
      )
      t.equal(
        refusals.reduce((sum, count) => sum + count, 0),
        20,
      )
      t.equal(await counter(plain.gateway, outcomes, { reason: 'service_account.throttled' }), 6)
      t.equal(
        await counter(plain.gateway, 'portcullis_service_account_throttled_requests_total'),
        6,
      )
    },
  )

  void t.test('X-Forwarded-For counts only from a trusted proxy', async (t) => {
    const proxied = await gateway({ server: { trusted_proxies: ['127.0.0.1'] } })
    const base = proxied.gateway.url
    const valid = await mint(proxied, admin, { name: 'valid' })
    t.same(await failures(base, 20, () => '198.51.100.7'), fill(20, 401))
    t.equal((await attempt(base, badToken(0), '198.51.100.7')).status, 429, 'that client: 429')
    const spoofed = await attempt(base, badToken(1), '203.0.113.99, 198.51.100.7')
    t.equal(spoofed.status, 429, 'a prepended address does not change the client')
    const behind = await attempt(base, badToken(2), '198.51.100.7, 127.0.0.1')
    t.equal(behind.status, 429, 'trusted hops are skipped')
    t.equal((await attempt(base, badToken(0), '198.51.100.8')).status, 401, 'another client: 401')
    t.equal((await attempt(base, badToken(1))).status, 401, 'the proxy itself: 401')
    t.equal((await attempt(base, valid.token, '198.51.100.7')).status, 200, 'valid: 200')
  })

  void t.test('IPv6 clients are grouped by /64', async (t) => {
    const proxied = await gateway({ server: { trusted_proxies: ['127.0.0.1'] } })
    const base = proxied.gateway.url
    const halves = (index: number) =>
      index < 10 ? '2001:db8:1:2::a' : '2001:db8:1:2:ffff:ffff:ffff:ffff'
    t.same(await failures(base, 20, halves), fill(20, 401), 'two addresses, one /64')
    t.equal((await attempt(base, badToken(0), '2001:db8:1:2::1234')).status, 429, 'a third: 429')
    t.equal((await attempt(base, badToken(0), '2001:db8:1:3::a')).status, 401, 'next /64: 401')
  })

  void t.test('an IPv6 peer (::1): the 21st failure → 429, a valid token → 200', async (t) => {
    const v6 = await gateway({ server: { host: '::1' } })
    const base = `http://[::1]:${v6.gateway.port}`
    t.equal(
      v6.gateway.url,
      base,
      'the gateway reports a usable URL (regression: IPv6 hosts are bracketed)',
    )
    const minted = await fetch(`${base}/service-accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'valid' }),
    })
    t.equal(minted.status, 201, 'minted over IPv6')
    const { token } = (await minted.json()) as { token: string }
    t.equal((await attempt(base, token)).status, 200, 'the peer is ::1')
    t.same(await failures(base, 20, (index) => `198.51.100.${index}`), fill(20, 401))
    t.equal((await attempt(base, badToken(0))).status, 429, 'the 21st: 429')
    t.equal((await attempt(base, token)).status, 200, 'a valid token: 200')
    // The mint, the valid token's two requests and the 21 bad ones; the access log hands its
    // lines over shortly after the responses, so the client waits for all of them.
    let clients: unknown[] = []
    await waitFor(() => {
      clients = v6.gateway.logs
        .records()
        .filter((record) => record.msg === 'request')
        .map((record) => record.client)
      return clients.length === 24
    }, 'the 24 access lines')
    t.same([...new Set(clients)], ['::1'], 'peer ::1 throughout')
  })
})
