/**
 * The audit trail through the gateway, on both stores: what mints, revokes, uses, refusals and
 * throttling by clients leave in the store's event chain, its log lines and its metrics.
 */
import t from 'tap'
import { eventHash } from '../../../src/service-accounts/audit-chain.js'
import { createLogger } from '../../../src/logger.js'
import type { AuditEvent } from '../../../src/service-accounts/audit-event.js'
import { verifyChain } from '../../../src/service-accounts/audit-verify.js'
import { createServiceAccountStore } from '../../../src/service-accounts/create-store.js'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import type { ConfigInput, TestGateway } from '../../helpers/gateway.js'
import { metricValue } from '../../helpers/metrics.js'
import { startRuntime } from '../../helpers/runtime.js'
import { allEvents, assertChain } from '../../contract/service-account-store.js'
import { ADMIN, jConfig, jwt, stack, type Reply, type Stack } from '../fixtures.js'
import { grants, mint, onStore, pollUntil, subsystem, type StoreUnderTest } from './harness.js'

const runtime = await startRuntime(t)

onStore(t, async (t, store) => {
  const J = await stack(t, runtime, jConfig({}, await store.section()))
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const events = () => allEvents(subsystem(J.gateway).store)

  void t.test('a mint and a revoke are recorded once each, with actor and request', async (t) => {
    const before = Date.now()
    const mintReply = await J.call('POST', '/service-accounts', {
      token: admin,
      json: { name: 'k-audited', scopes: grants(ADMIN), allow_privileged_scopes: true },
    })
    t.equal(mintReply.status, 201)
    const minted = mintReply.body as { id: string; token: string; expires_at: number }
    const revokes = [
      await J.call('DELETE', `/service-accounts/${minted.id}`, { token: admin }),
      await J.call('DELETE', `/service-accounts/${minted.id}`, { token: admin }),
    ]
    t.same(
      revokes.map((reply) => reply.status),
      [204, 204],
    )
    const recorded = (await events()).filter((event) => event.accountId === minted.id)
    t.match(recorded, [
      {
        type: 'mint',
        accountName: 'k-audited',
        actorKind: 'jwt',
        actor: 'human-admin',
        clientAddress: '127.0.0.1',
        requestId: mintReply.headers['x-request-id'],
        details: {
          scopes: [ADMIN],
          owner: 'human-admin',
          expires_at: minted.expires_at,
          privileged: true,
        },
      },
      {
        type: 'revoke',
        accountName: 'k-audited',
        actor: 'human-admin',
        requestId: revokes[0]?.headers['x-request-id'],
      },
    ])
    t.equal(recorded.length, 2, 'the repeated revoke is not recorded again')
    for (const event of recorded) {
      t.ok(event.occurredAt >= before && event.occurredAt <= Date.now(), 'milliseconds, now')
      t.equal(event.hash, eventHash(event))
    }
    const stored = JSON.stringify(recorded)
    t.notOk(stored.includes(minted.token.slice(8)), 'never the token')
  })

  void t.test('an ordinary mint is recorded unprivileged; the chain stays whole', async (t) => {
    const other = await jwt(['service_accounts:write', 'agents:run'], { sub: 'bob' })
    const account = await mint(J, other, { name: 'k-plain', scopes: grants('agents:run') })
    const refused = await J.call('POST', '/service-accounts', {
      token: other,
      json: { name: 'k-plain', scopes: grants('agents:run') },
    })
    t.equal(refused.status, 409, 'a conflicting mint')
    const all = await events()
    t.match(
      all.filter((event) => event.accountName === 'k-plain'),
      [{ type: 'mint', accountId: account.id, actor: 'bob', details: { privileged: false } }],
      'the refused mint left no event',
    )
    assertChain(t, all)
  })

  void t.test('uses, refusals, throttling and a rotation, as clients cause them', async (t) => {
    const S = await auditedStack(store)
    const minted = await mint(S, admin, { name: 'k-rotating' })
    const use = (address: string, userAgent?: string) =>
      S.call('GET', '/config', { token: minted.token, headers: from(address, userAgent) })
    const first = await use('203.0.113.10')
    t.equal(first.status, 200)
    await use('203.0.113.10')
    const moved = await use('203.0.113.11', 'curl/8.5.0')
    t.equal(moved.status, 200)
    const listed = await S.call('GET', '/service-accounts', { token: admin })
    t.match(
      (listed.body as { data: unknown[] }).data,
      [{ name: 'k-rotating', last_used_at: Number, last_used_from: '203.0.113.10' }],
      'the listing shows where the token was last used from',
    )
    await pollUntil(
      async () =>
        (await allEvents(subsystem(S.gateway).store)).some(
          (event) => event.type === 'use_from_new_address',
        ),
      'the use events',
    )

    t.equal(
      (await S.call('DELETE', `/service-accounts/${minted.id}`, { token: admin })).status,
      204,
    )
    const refusals: Reply[] = []
    for (let index = 0; index < 25; index += 1) refusals.push(await use('203.0.113.20'))
    t.same(
      refusals.map((reply) => reply.status),
      [...Array<number>(20).fill(401), ...Array<number>(5).fill(429)],
    )
    const unknown = await S.call('GET', '/config', {
      token: mintToken().token,
      headers: from('203.0.113.30', 'Go-http-client/1.1'),
    })
    t.equal(unknown.status, 401)
    const malformed = await S.call('GET', '/config', {
      token: 'svc_pat_short',
      headers: from('203.0.113.30'),
    })
    t.equal(malformed.status, 401)
    const again = await mint(S, admin, { name: 'k-rotating' })
    const metrics = await S.gateway.metrics()
    t.equal(
      metricValue(metrics, 'portcullis_audit_refused_tokens_total', { account: 'k-rotating' }),
      25,
      'every refused token is counted, throttled or not',
    )
    t.equal(
      metricValue(metrics, 'portcullis_audit_refused_tokens_total', { account: '(unknown)' }),
      1,
    )
    const types = 'type=first_use,use_from_new_address,rotation,throttled&limit=100'
    await pollUntil(
      async () => (await read(S, admin, `/service-accounts/events?${types}`)).length === 4,
      'the use, rotation and throttle events through the event API',
    )
    const events = await read(S, admin, `/service-accounts/events?${types}`)
    t.same(events.map((event) => event.type).sort(), [
      'first_use',
      'rotation',
      'throttled',
      'use_from_new_address',
    ])
    t.same(
      (await read(S, admin, `/service-accounts/${minted.id}/events`)).map((event) => event.type),
      ['revoke', 'use_from_new_address', 'first_use', 'mint'],
      "the account's own trail, newest first (its refusals are still being counted)",
    )

    const full = await trailAfterStop(S.gateway)
    for (const event of events)
      t.ok(
        full.some((stored) => stored.id === event.id && stored.hash === event.hash),
        `${String(event.type)}: the API shows the stored event`,
      )
    const trail = full.filter((event) => event.type !== 'mint' && event.type !== 'revoke')
    const of = (type: string, state?: string) =>
      trail.filter(
        (event) => event.type === type && (state === undefined || event.details.state === state),
      )
    t.match(of('first_use'), [
      {
        accountId: minted.id,
        accountName: 'k-rotating',
        actorKind: 'service_account',
        actor: 'sa:k-rotating',
        clientAddress: '203.0.113.10',
        requestId: requestId(first),
        details: { client_class: 'python' },
      },
    ])
    t.match(of('use_from_new_address'), [
      {
        clientAddress: '203.0.113.11',
        requestId: requestId(moved),
        details: { client_class: 'curl' },
      },
    ])
    t.match(of('rotation'), [
      {
        accountId: again.id,
        actor: 'human-admin',
        details: { revoked_account_id: minted.id, mint_event_id: String, revoke_event_id: String },
      },
    ])
    t.match(of('throttled', 'entered'), [
      {
        clientAddress: '203.0.113.20',
        requestId: requestId(refusals[19] as Reply),
        details: { failures: 20, window_seconds: 3_600 },
      },
    ])
    t.match(of('throttled', 'left'), [
      { clientAddress: '203.0.113.20', details: { ending: 'shutdown' } },
    ])
    t.match(of('refused'), [
      {
        accountId: minted.id,
        accountName: 'k-rotating',
        clientAddress: '203.0.113.20',
        requestId: requestId(refusals[0] as Reply),
        details: { reason: 'revoked', count: 25, client_class: 'python' },
      },
      {
        accountId: null,
        clientAddress: '203.0.113.30',
        requestId: requestId(unknown),
        details: { reason: 'unknown', count: 1, client_class: 'go' },
      },
    ])
    t.equal(trail.length, 7, 'the known address, the repeat and the malformed token wrote nothing')
    const lines = S.gateway.logs
      .records()
      .filter((line) => line.audit === true)
      .map((line) => [line.type, line.seq])
    t.equal(lines.length, trail.length + 3, 'one log line per event (with 2 mints and a revoke)')
    t.ok(
      trail.every((event) => lines.some(([type, seq]) => type === event.type && seq === event.seq)),
      'each event logged with its place in the chain',
    )
    t.notOk(JSON.stringify(trail).includes(minted.token.slice(8)), 'never the token')
  })

  void t.test('a refusal window, once over, is read through the event API', async (t) => {
    const S = await auditedStack(store, { refused_window_seconds: 1 })
    const leaked = await mint(S, admin, { name: 'k-leaked' })
    t.equal(
      (await S.call('DELETE', `/service-accounts/${leaked.id}`, { token: admin })).status,
      204,
    )
    const tried: Reply[] = []
    for (let index = 0; index < 3; index += 1)
      tried.push(
        await S.call('GET', '/config', { token: leaked.token, headers: from('203.0.113.40') }),
      )
    t.same(
      tried.map((reply) => reply.status),
      [401, 401, 401],
    )
    const refused = () => read(S, admin, '/service-accounts/events?type=refused&account=k-leaked')
    // However many windows the three refusals fell in, they are all counted once those end.
    const counted = async () =>
      (await refused()).reduce((sum, event) => sum + Number(event.details.count), 0)
    await pollUntil(async () => (await counted()) === 3, 'the refused events through the API')
    t.match((await refused()).at(-1), {
      type: 'refused',
      account_id: leaked.id,
      account_name: 'k-leaked',
      client_address: '203.0.113.40',
      request_id: requestId(tried[0] as Reply),
      details: { reason: 'revoked', client_class: 'python' },
    })
  })

  void t.test(
    'a flood of unknown tokens from one address writes a bounded number of rows',
    async (t) => {
      const S = await auditedStack(store)
      const flood = 600
      let refusedReplies = 0
      for (let sent = 0; sent < flood; sent += 20) {
        const batch = await Promise.all(
          Array.from({ length: 20 }, () =>
            S.call('GET', '/config', { token: mintToken().token, headers: from('198.51.100.66') }),
          ),
        )
        refusedReplies += batch.filter(
          (reply) => reply.status === 401 || reply.status === 429,
        ).length
      }
      t.equal(refusedReplies, flood, 'every one refused')
      const counted = metricValue(
        await S.gateway.metrics(),
        'portcullis_audit_refused_tokens_total',
        {
          account: '(unknown)',
        },
      )
      const rows = (await trailAfterStop(S.gateway)).filter(
        (event) => event.clientAddress === '198.51.100.66',
      )
      t.same(
        rows.map((event) => [event.type, event.details.state ?? event.details.reason]),
        [
          ['throttled', 'entered'],
          ['refused', 'unknown'],
          ['throttled', 'left'],
        ],
        'one refused row per window, one throttle episode: three rows whatever the flood',
      )
      t.equal(rows[1]?.details.count, counted, 'the row counts every token the store refused')
    },
  )
})

/**
 * A gateway that believes X-Forwarded-For from the test (so each call picks its client address)
 * and whose refusal windows and throttle window outlast any test, so what is written does not
 * depend on how fast the machine is; `audit` overrides its audit settings.
 */
async function auditedStack(store: StoreUnderTest, audit: ConfigInput = {}): Promise<Stack> {
  const section = await store.section({ failed_lookup_window_seconds: 3_600 })
  const more: ConfigInput = {
    ...section,
    server: { trusted_proxies: ['127.0.0.1'] },
    audit: { refused_window_seconds: 3_600, flush_interval_ms: 20, ...audit },
  }
  return stack(t, runtime, jConfig({}, more))
}

/** The gateway's whole trail once it has stopped (what stopping flushed included), verified. */
async function trailAfterStop(gateway: TestGateway): Promise<AuditEvent[]> {
  await gateway.stop()
  const store = await createServiceAccountStore(
    gateway.config.database,
    createLogger({ level: 'silent' }),
  )
  try {
    const report = await verifyChain((seq, limit) => store.eventsAfter(seq, limit))
    if (report.problems.length > 0) throw new Error(`broken chain: ${JSON.stringify(report)}`)
    return await allEvents(store)
  } finally {
    await store.close()
  }
}

type Listed = Record<string, unknown> & { details: Record<string, unknown> }

/** Events as a client reads them: `GET <path>` with the admin token, newest first. */
async function read(S: Stack, token: string, path: string): Promise<Listed[]> {
  const reply = await S.call('GET', path, { token })
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`)
  return (reply.body as { data: Listed[] }).data
}

const from = (address: string, userAgent = 'python-httpx/0.27.0') => ({
  'x-forwarded-for': address,
  'user-agent': userAgent,
})

const requestId = (reply: Reply): string | undefined => {
  const id = reply.headers['x-request-id']
  return typeof id === 'string' ? id : undefined
}
