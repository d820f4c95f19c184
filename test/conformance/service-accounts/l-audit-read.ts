/**
 * Reading the audit trail through the gateway, on both stores: `GET /service-accounts/events`
 * and `GET /service-accounts/{id}/events`, paged as the listing, filtered, authorized as the
 * listing, and owner-scoped on the 3.0 line (SA-6) as the listing is. The events are real: mints
 * and revokes made through the API with real JWTs and service-account tokens.
 */
import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import { startRuntime } from '../../helpers/runtime.js'
import { ADMIN, ip, jConfig, jwt, stack, type Reply, type Stack } from '../fixtures.js'
import { grants, invalidBody, mint, onStore, refused } from './harness.js'

const runtime = await startRuntime(t)
const MANAGE = ['service_accounts:read', 'service_accounts:write', 'service_accounts:delete']
const MISSING_IDENTITY = 'Authenticated request is missing a user identity'
const notFound = (id: string) => `Service account '${id}' not found`
const EVENT_KEYS = [
  'id',
  'seq',
  'occurred_at',
  'type',
  'actor_kind',
  'actor',
  'account_id',
  'account_name',
  'client_address',
  'request_id',
  'details',
  'prev_hash',
  'hash',
]

interface Event {
  id: string
  seq: number
  occurred_at: string
  type: string
  actor_kind: string | null
  actor: string | null
  account_id: string | null
  account_name: string | null
  client_address: string | null
  request_id: string | null
  details: Record<string, unknown>
  prev_hash: string
  hash: string
}
interface EventListing {
  data: Event[]
  meta: { page: number; limit: number; total_pages: number; total_count: number }
}

/**
 * The uses of tokens below (first use, new address) reach the trail through the audit queue a
 * moment later, at a time no test controls; held back here, the trail read is the population's
 * changes only: its mints, its revoke and the rotation its second mint of `a1` makes.
 */
const HOLD_QUEUED_EVENTS = { flush_interval_ms: 3_600_000 }

const events = (fixture: Stack, token: string, query = '') =>
  fixture.call('GET', `/service-accounts/events${query}`, { token })
const accountEvents = (fixture: Stack, token: string, id: string, query = '') =>
  fixture.call('GET', `/service-accounts/${id}/events${query}`, { token })

/** The events of a 200 answer; fails the test otherwise. */
function listed(t: Test, reply: Reply): Event[] {
  t.equal(reply.status, 200, reply.status === 200 ? 'listed' : reply.text)
  t.equal(reply.upstream, undefined, 'answered by the gateway')
  return (reply.body as EventListing).data
}

/** `type account` of each event, newest first. */
function summary(t: Test, reply: Reply): string[] {
  return listed(t, reply).map((event) => `${event.type} ${event.account_name ?? '-'}`)
}

onStore(t, async (t, store) => {
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const idlessAdmin = await jwt([ADMIN], { sub: null })
  const alice = await jwt([...MANAGE, 'agents:run'], { sub: 'alice' })
  const bob = await jwt([...MANAGE, 'agents:run'], { sub: 'bob' })
  const idless = await jwt([...MANAGE, 'agents:run'], { sub: null })
  const writer = await jwt(['service_accounts:write', 'agents:run'], { sub: 'carol' })

  /**
   * `ws` workspace-level, `a1` alice's then revoked, `b1` bob's, `pat` alice's token that may
   * manage accounts, `p1` minted by that token, then `a1` minted again by alice (a rotation,
   * written with that mint): eight events, the revoke of `a1` the fourth.
   */
  async function population(fixture: Stack, prefix: string) {
    const named = (name: string) => `${prefix}-${name}`
    const ws = await mint(fixture, idlessAdmin, { name: named('ws') })
    const a1 = await mint(fixture, alice, { name: named('a1'), scopes: grants('agents:run') })
    const b1 = await mint(fixture, bob, { name: named('b1'), scopes: grants('agents:run') })
    const revoked = await fixture.call('DELETE', `/service-accounts/${a1.id}`, { token: alice })
    if (revoked.status !== 204) throw new Error(`revoke: ${revoked.status} ${revoked.text}`)
    const pat = await mint(fixture, alice, {
      name: named('pat'),
      scopes: grants(...MANAGE, 'agents:run'),
      allow_privileged_scopes: true,
    })
    const p1 = await mint(fixture, pat.token, { name: named('p1'), scopes: grants('agents:run') })
    const a1again = await mint(fixture, alice, { name: named('a1'), scopes: grants('agents:run') })
    return { ws, a1, b1, pat, p1, a1again, named, revokeRequest: revoked.headers['x-request-id'] }
  }

  void t.test('the 2.9 line', async (t) => {
    const J = await stack(
      t,
      runtime,
      jConfig({}, { ...(await store.section()), audit: HOLD_QUEUED_EVENTS }),
      {},
      { agentOsLine: '2.9' },
    )
    const { ws, a1, b1, pat, p1, a1again, named, revokeRequest } = await population(J, 'l29')

    await t.test('every event, newest first, each field snake_case; never a token', async (t) => {
      const reply = await events(J, admin)
      const data = listed(t, reply)
      t.same(
        data.map((event) => `${event.type} ${event.account_name}`),
        [
          `rotation ${named('a1')}`,
          `mint ${named('a1')}`,
          `mint ${named('p1')}`,
          `mint ${named('pat')}`,
          `revoke ${named('a1')}`,
          `mint ${named('b1')}`,
          `mint ${named('a1')}`,
          `mint ${named('ws')}`,
        ],
      )
      t.strictSame((reply.body as EventListing).meta, {
        page: 1,
        limit: 20,
        total_pages: 1,
        total_count: 8,
        search_time_ms: 0,
      })
      const [rotation, newest, , , revoke] = data
      t.match(rotation, {
        type: 'rotation',
        actor: 'alice',
        account_id: a1again.id,
        details: { revoked_account_id: a1.id, revoke_event_id: revoke?.id },
      })
      t.same(Object.keys(newest ?? {}), EVENT_KEYS, 'the fields, in order')
      t.match(newest, {
        type: 'mint',
        actor_kind: 'jwt',
        actor: 'alice',
        account_id: a1again.id,
        client_address: '127.0.0.1',
        details: { scopes: ['agents:run'], owner: 'alice', privileged: false },
      })
      t.match(revoke, { type: 'revoke', account_id: a1.id, request_id: revokeRequest })
      t.match(data[3]?.details, { privileged: true }, 'the privileged mint')
      t.match(data[2], { actor_kind: 'service_account', actor: `sa:${named('pat')}` })
      for (const event of data) {
        t.match(event.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ISO 8601, UTC')
        t.match(event.hash, /^[0-9a-f]{64}$/)
      }
      for (const [index, event] of data.entries()) {
        const older = data[index + 1]
        if (older !== undefined) t.equal(event.prev_hash, older.hash, 'the chain, readable')
      }
      for (const account of [ws, a1, b1, pat, p1, a1again]) {
        t.notOk(reply.text.includes(account.token.slice(8)), 'no token')
        const hash = createHash('sha256').update(account.token).digest('hex')
        t.notOk(reply.text.includes(hash), 'no token hash')
      }
    })

    await t.test('paged as the listing: limit and page, meta counts every match', async (t) => {
      const first = await events(J, admin, '?limit=3')
      t.same(summary(t, first), [
        `rotation ${named('a1')}`,
        `mint ${named('a1')}`,
        `mint ${named('p1')}`,
      ])
      t.strictSame((first.body as EventListing).meta, {
        page: 1,
        limit: 3,
        total_pages: 3,
        total_count: 8,
        search_time_ms: 0,
      })
      const third = await events(J, admin, '?limit=3&page=3')
      t.same(summary(t, third), [`mint ${named('a1')}`, `mint ${named('ws')}`])
      t.same(summary(t, await events(J, admin, '?limit=3&page=4')), [], 'past the end: empty')
      invalidBody(t, await events(J, admin, '?limit=0'), 'greater_than_equal', ['query', 'limit'])
      invalidBody(t, await events(J, admin, '?limit=101'), 'less_than_equal', ['query', 'limit'])
      invalidBody(t, await events(J, admin, '?page=0'), 'greater_than_equal', ['query', 'page'])
      invalidBody(t, await events(J, admin, '?page=x'), 'int_parsing', ['query', 'page'])
    })

    await t.test('type: repeated or comma-separated; an unknown type → 422', async (t) => {
      const revokes = [`revoke ${named('a1')}`]
      t.same(summary(t, await events(J, admin, '?type=revoke')), revokes)
      const both = summary(t, await events(J, admin, '?type=revoke,mint'))
      t.equal(both.length, 7)
      t.same(summary(t, await events(J, admin, '?type=revoke&type=first_use')), revokes)
      const bad = await events(J, admin, '?type=mint,minted&type=prune')
      invalidBody(t, bad, 'literal_error', ['query', 'type', 1])
      t.match(bad.detail, [
        {
          input: 'minted',
          msg: "Input should be 'mint', 'revoke', 'first_use', 'use_from_new_address', 'refused', 'throttled', 'rotation' or 'prune'",
        },
      ])
      t.equal((bad.detail as unknown[]).length, 1, 'one problem')
    })

    await t.test('account: an id, or a name (every account that bore it)', async (t) => {
      const a1Events = [`revoke ${named('a1')}`, `mint ${named('a1')}`]
      t.same(summary(t, await events(J, admin, `?account=${a1.id}`)), a1Events)
      t.same(summary(t, await events(J, admin, `?account=${a1.id.toUpperCase()}`)), a1Events)
      t.same(
        summary(t, await events(J, admin, `?account=${named('a1')}`)),
        [`rotation ${named('a1')}`, `mint ${named('a1')}`, ...a1Events],
        'the rotated name: both accounts',
      )
      t.same(summary(t, await events(J, admin, '?account=nobody')), [])
    })

    await t.test(
      'since (inclusive) and until (exclusive): epoch seconds or ISO 8601',
      async (t) => {
        const all = listed(t, await events(J, admin))
        const times = all.map((event) => Date.parse(event.occurred_at))
        const newest = Math.max(...times)
        const oldest = Math.min(...times)
        const afterAll = Math.floor(newest / 1000) + 1
        t.same(summary(t, await events(J, admin, `?since=${afterAll}`)), [], 'epoch seconds')
        t.equal(listed(t, await events(J, admin, `?until=${afterAll}`)).length, 8)
        const iso = new Date(oldest).toISOString()
        t.equal(listed(t, await events(J, admin, `?since=${iso}`)).length, 8, 'since is inclusive')
        t.same(listed(t, await events(J, admin, `?until=${iso}`)), [], 'until is exclusive')
        const offset = new Date(oldest + 2 * 3_600_000).toISOString().replace('Z', '+02:00')
        t.equal(listed(t, await events(J, admin, `?since=${encodeURIComponent(offset)}`)).length, 8)
        t.equal(listed(t, await events(J, admin, '?since=2000-01-01')).length, 8, 'a date')
        t.same(listed(t, await events(J, admin, '?until=2000-01-01')), [])
        for (const bad of ['yesterday', '2025-02-30', '2025-07-01T12:00:00', '-5']) {
          invalidBody(
            t,
            await events(J, admin, `?since=${encodeURIComponent(bad)}`),
            'datetime_from_date_parsing',
            ['query', 'since'],
          )
        }
        invalidBody(t, await events(J, admin, '?until=soon'), 'datetime_from_date_parsing', [
          'query',
          'until',
        ])
      },
    )

    await t.test('actor: the user id, or sa:<name> for a token', async (t) => {
      t.same(summary(t, await events(J, admin, '?actor=bob')), [`mint ${named('b1')}`])
      t.same(summary(t, await events(J, admin, `?actor=sa:${named('pat')}`)), [
        `mint ${named('p1')}`,
      ])
      t.same(
        summary(t, await events(J, admin, `?actor=alice&type=mint&account=${named('a1')}`)),
        [`mint ${named('a1')}`, `mint ${named('a1')}`],
        'filters combine',
      )
    })

    await t.test('one account’s events; a revoked account’s too; unknown → 404', async (t) => {
      t.same(summary(t, await accountEvents(J, admin, a1.id)), [
        `revoke ${named('a1')}`,
        `mint ${named('a1')}`,
      ])
      const paged = await accountEvents(J, admin, a1.id, '?limit=1&page=2&account=nobody')
      t.same(summary(t, paged), [`mint ${named('a1')}`], 'paged; account= is the path’s')
      t.match((paged.body as EventListing).meta, { page: 2, limit: 1, total_pages: 2 })
      t.same(summary(t, await accountEvents(J, admin, a1.id, '?type=mint')), [
        `mint ${named('a1')}`,
      ])
      const unknown = '00000000-0000-4000-8000-000000000000'
      refused(t, await accountEvents(J, admin, unknown), 404, notFound(unknown))
      refused(t, await accountEvents(J, admin, 'events'), 404, notFound('events'))
      invalidBody(t, await accountEvents(J, admin, a1.id, '?type=x'), 'literal_error', [
        'query',
        'type',
        0,
      ])
    })

    await t.test('/service-accounts/events is never read as an account id', async (t) => {
      const revoke = await J.call('DELETE', '/service-accounts/events', { token: admin })
      refused(t, revoke, 404, notFound('events'))
      const post = await J.call('POST', '/service-accounts/events', { token: admin })
      refused(t, post, 405, 'Method Not Allowed')
      const deleteEvents = await J.call('DELETE', `/service-accounts/${a1.id}/events`, {
        token: admin,
      })
      refused(t, deleteEvents, 405, 'Method Not Allowed')
      refused(t, await accountEvents(J, admin, `${a1.id}/more`), 404, 'Not Found')
    })

    await t.test('SA-2 authorization: the listing’s', async (t) => {
      const noScope = await jwt(['agents:run'], { sub: 'dave' })
      refused(t, await events(J, noScope), 403, ip('service_accounts:read'))
      refused(t, await accountEvents(J, noScope, a1.id), 403, ip('service_accounts:read'))
      refused(t, await events(J, writer), 403, ip('service_accounts:read'))
      const anonymous = await J.call('GET', '/service-accounts/events')
      t.equal(anonymous.status, 401)
      t.equal(anonymous.upstream, undefined)
      const bad = await J.call('GET', `/service-accounts/${a1.id}/events`, { token: b1.token })
      refused(t, bad, 403, ip('service_accounts:read'))
    })

    await t.test(
      '2.9 lists every account, so every caller with the scope reads every event',
      async (t) => {
        t.equal(listed(t, await events(J, bob)).length, 8)
        t.equal(listed(t, await events(J, idless)).length, 8)
        t.equal(
          listed(t, await events(J, pat.token)).length,
          8,
          'a token with service_accounts:read',
        )
        t.equal(listed(t, await accountEvents(J, bob, a1.id)).length, 2, 'alice’s account')
      },
    )
  })

  void t.test('the 3.0 line under user isolation (SA-6)', async (t) => {
    const J = await stack(
      t,
      runtime,
      jConfig({ user_isolation: true }, { ...(await store.section()), audit: HOLD_QUEUED_EVENTS }),
      {},
      { agentOsLine: '3.0' },
    )
    const { ws, a1, b1, pat, p1, named } = await population(J, 'l30')

    await t.test('a non-admin reads the events of the accounts it lists', async (t) => {
      t.same(summary(t, await events(J, alice)), [
        `rotation ${named('a1')}`,
        `mint ${named('a1')}`,
        `mint ${named('pat')}`,
        `revoke ${named('a1')}`,
        `mint ${named('a1')}`,
        `mint ${named('ws')}`,
      ])
      t.same(summary(t, await events(J, bob)), [`mint ${named('b1')}`, `mint ${named('ws')}`])
      t.same(summary(t, await events(J, pat.token)), [`mint ${named('p1')}`, `mint ${named('ws')}`])
      const counted = await events(J, bob, '?limit=1')
      t.match((counted.body as EventListing).meta, { total_count: 2, total_pages: 2 })
      t.same(summary(t, await events(J, bob, `?account=${a1.id}`)), [], 'a filter widens nothing')
    })

    await t.test(
      'another owner’s account → 404, as an unknown id; a shared one is read',
      async (t) => {
        refused(t, await accountEvents(J, bob, a1.id), 404, notFound(a1.id))
        refused(t, await accountEvents(J, alice, b1.id), 404, notFound(b1.id))
        refused(t, await accountEvents(J, alice, p1.id), 404, notFound(p1.id))
        t.same(summary(t, await accountEvents(J, bob, ws.id)), [`mint ${named('ws')}`])
        t.same(summary(t, await accountEvents(J, bob, b1.id)), [`mint ${named('b1')}`])
      },
    )

    await t.test('an admin reads all; a non-admin without sub is refused', async (t) => {
      t.equal(listed(t, await events(J, admin)).length, 8)
      t.equal(listed(t, await events(J, idlessAdmin)).length, 8)
      t.equal(listed(t, await accountEvents(J, admin, b1.id)).length, 1)
      refused(t, await events(J, idless), 403, MISSING_IDENTITY)
      refused(t, await accountEvents(J, idless, ws.id), 403, MISSING_IDENTITY)
    })
  })
})
