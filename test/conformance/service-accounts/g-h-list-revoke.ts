/** Checklist part G (list, lines 119–126) and H (revoke, lines 127–133), on both stores. */
import t from 'tap'
import { metricValue } from '../../helpers/metrics.js'
import { startRuntime } from '../../helpers/runtime.js'
import { ADMIN, ip, jConfig, oConfig, jwt, stack, type Reply } from '../fixtures.js'
import { onStore, grants, invalidBody, mint, nowSeconds, refused, seedAccount } from './harness.js'

const runtime = await startRuntime(t)
const LIST_KEYS = [
  'id',
  'name',
  'principal',
  'user_id',
  'token_prefix',
  'scopes',
  'created_at',
  'expires_at',
  'last_used_at',
  // Portcullis's, beside the time it goes with; AgentOS clients ignore a key they do not know.
  'last_used_from',
  'revoked_at',
  'created_by',
]
const MANAGE_AUTHENTICATION = 'Authentication is required to manage service accounts.'

interface Listed {
  id: string
  name: string
  token_prefix: string
  user_id: string | null
  created_at: number
  revoked_at: number | null
}
interface Listing {
  data: Listed[]
  meta: Record<string, unknown>
}
const listing = (reply: Reply): Listing => reply.body as Listing

onStore(t, async (t, store) => {
  const J = await stack(t, runtime, jConfig({}, await store.section()))
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const list = (query = '', token = admin) => J.call('GET', `/service-accounts${query}`, { token })
  const revoke = (id: string, token = admin) =>
    J.call('DELETE', `/service-accounts/${id}`, { token })
  const revokeWrites = async () =>
    metricValue(
      await J.gateway.metrics(),
      'portcullis_service_account_store_query_duration_seconds_count',
      { operation: 'revoke' },
    ) ?? 0

  void t.test(
    'SA-2 admin lists → 200 {data, meta}; items have no token or hash; token_prefix == token[:16]',
    async (t) => {
      const minted = [
        await mint(J, admin, { name: 'g119-a' }),
        await mint(J, admin, { name: 'g119-b' }),
      ]
      const reply = await list()
      t.equal(reply.status, 200)
      t.equal(reply.upstream, undefined, 'answered by the gateway')
      const body = listing(reply)
      t.strictSame(Object.keys(body), ['data', 'meta'])
      const total = body.data.length
      t.strictSame(body.meta, {
        page: 1,
        limit: 20,
        total_pages: Math.ceil(total / 20),
        total_count: total,
        search_time_ms: 0,
      })
      t.ok(reply.text.includes('"search_time_ms":0'), 'search_time_ms is a number')
      for (const item of body.data) t.strictSame(Object.keys(item), LIST_KEYS, item.name)
      t.notMatch(reply.text, /token_hash|svc_pat_[0-9A-Za-z]{17}/, 'no hash, no whole token')
      for (const account of minted) {
        const item = body.data.find((entry) => entry.id === account.id)
        t.equal(item?.token_prefix, account.token.slice(0, 16), 'token_prefix == token[:16]')
      }
    },
  )

  void t.test(
    'SA-2 an empty store → data [], total_count 0, total_pages 0; SA-2 limit/page/include_revoked/sort honoured',
    async (t) => {
      const empty = await stack(t, runtime, jConfig({}, await store.section()))
      const first = await empty.call('GET', '/service-accounts', { token: admin })
      t.equal(first.status, 200)
      t.strictSame(listing(first), {
        data: [],
        meta: { page: 1, limit: 20, total_pages: 0, total_count: 0, search_time_ms: 0 },
      })

      // SA-2 on the same, now known, contents: 12 accounts minted in shuffled order, 2 revoked.
      const names = ['k', 'c', 'h', 'a', 'l', 'e', 'j', 'b', 'g', 'd', 'i', 'f'].map(
        (n) => `n-${n}`,
      )
      const ids = new Map<string, string>()
      for (const name of names) ids.set(name, (await mint(empty, admin, { name })).id)
      for (const name of ['n-b', 'n-g']) {
        const gone = await empty.call('DELETE', `/service-accounts/${ids.get(name) ?? ''}`, {
          token: admin,
        })
        t.equal(gone.status, 204)
      }
      const query = '?limit=5&page=2&include_revoked=false&sort_by=name&sort_order=asc'
      const reply = await empty.call('GET', `/service-accounts${query}`, { token: admin })
      t.equal(reply.status, 200)
      const body = listing(reply)
      t.same(
        body.data.map((item) => item.name),
        ['n-h', 'n-i', 'n-j', 'n-k', 'n-l'],
        'SA-2 active only, by name ascending, offset 5',
      )
      t.strictSame(body.meta, {
        page: 2,
        limit: 5,
        total_pages: 2,
        total_count: 10,
        search_time_ms: 0,
      })
      const past = await empty.call('GET', '/service-accounts?limit=5&page=9', { token: admin })
      t.strictSame(listing(past).data, [], 'a page past the end is empty')
      t.match(listing(past).meta, { page: 9, total_count: 12, total_pages: 3 })
    },
  )

  void t.test('SA-2 limit 0, limit 101, page 0, include_revoked=maybe → 422', async (t) => {
    invalidBody(t, await list('?limit=0'), 'greater_than_equal', ['query', 'limit'])
    invalidBody(t, await list('?limit=101'), 'less_than_equal', ['query', 'limit'])
    invalidBody(t, await list('?page=0'), 'greater_than_equal', ['query', 'page'])
    invalidBody(t, await list('?include_revoked=maybe'), 'bool_parsing', [
      'query',
      'include_revoked',
    ])
  })

  void t.test('SA-2 unknown sort_by and sort_order → 200, created_at descending', async (t) => {
    const reply = await list('?sort_by=bogus&sort_order=bogus&limit=100')
    t.equal(reply.status, 200)
    const data = listing(reply).data
    const explicit = listing(await list('?sort_by=created_at&sort_order=desc&limit=100')).data
    t.same(
      data.map((item) => item.id),
      explicit.map((item) => item.id),
    )
    t.ok(
      data.every(
        (item, index) => index === 0 || (data[index - 1]?.created_at ?? 0) >= item.created_at,
      ),
      'created_at never increases',
    )
    const ascending = listing(await list('?sort_by=created_at&sort_order=asc&limit=100')).data
    t.same(
      ascending.map((item) => item.id),
      [...explicit].reverse().map((item) => item.id),
      'and asc is its reverse',
    )
  })

  void t.test(
    'SA-2 JWT(agents:run) and a default-scope token → 403ip(service_accounts:read)',
    async (t) => {
      refused(t, await list('', await jwt(['agents:run'])), 403, ip('service_accounts:read'))
      const patd = await mint(J, admin, { name: 'g124' })
      refused(t, await list('', patd.token), 403, ip('service_accounts:read'))
    },
  )

  void t.test(
    'SA-2 O, no credential → 401 (deviation: AgentOS lists every account to anyone on an open instance)',
    async (t) => {
      const O = await stack(t, runtime, oConfig(await store.section()))
      const reply = await O.call('GET', '/service-accounts')
      refused(t, reply, 401, MANAGE_AUTHENTICATION)
    },
  )

  void t.test('SA-2 accounts of every minter are visible to any authorised lister', async (t) => {
    const bob = await jwt(['service_accounts:write', 'agents:run'], { sub: 'bob' })
    const byBob = await mint(J, bob, { name: 'g126-bob', scopes: grants('agents:run') })
    const byAlice = await mint(J, admin, {
      name: 'g126-alice',
      scopes: grants(ADMIN),
      allow_privileged_scopes: true,
    })
    const byPat = await mint(J, byAlice.token, { name: 'g126-pat' })
    const lister = await jwt(['service_accounts:read'], { sub: 'carol' })
    const reply = await list('?limit=100', lister)
    t.equal(reply.status, 200)
    const owners = new Map(listing(reply).data.map((item) => [item.id, item.user_id]))
    t.equal(owners.get(byBob.id), 'bob')
    t.equal(owners.get(byAlice.id), 'human-admin')
    t.equal(owners.get(byPat.id), 'sa:g126-alice')
  })

  void t.test('SA-3 unknown id → 404 "Service account \'nope\' not found"', async (t) => {
    refused(t, await revoke('nope'), 404, "Service account 'nope' not found")
  })

  void t.test(
    'SA-3 active → 204 empty; SA-3 again → 204, revoked_at unchanged, no write',
    async (t) => {
      const account = await mint(J, admin, { name: 'h128' })
      const before = nowSeconds()
      const first = await revoke(account.id)
      t.equal(first.status, 204)
      t.equal(first.text, '', 'empty body')
      t.equal(first.headers['content-type'], 'application/json', 'typed as AgentOS types it')
      const revokedAt = () =>
        list('?limit=100').then(
          (reply) => listing(reply).data.find((item) => item.id === account.id)?.revoked_at,
        )
      const at = await revokedAt()
      t.ok(typeof at === 'number' && at >= before && at <= nowSeconds(), 'revoked_at ≈ now')
      const writes = await revokeWrites()
      const again = await revoke(account.id)
      t.equal(again.status, 204, 'SA-3 idempotent')
      t.equal(again.text, '')
      t.equal(await revokedAt(), at, 'SA-3 revoked_at unchanged')
      t.equal(await revokeWrites(), writes, 'SA-3 no revoke statement ran')
    },
  )

  void t.test(
    'SA-3 JWT(agents:read) → 403ip(service_accounts:delete); JWT(service_accounts:delete) → 204',
    async (t) => {
      const account = await mint(J, admin, { name: 'h130' })
      const reader = await jwt(['agents:read'])
      refused(t, await revoke(account.id, reader), 403, ip('service_accounts:delete'))
      const deleter = await jwt(['service_accounts:delete'])
      t.equal((await revoke(account.id, deleter)).status, 204)
    },
  )

  void t.test('PAT-3 after revocation the token is refused at once on this replica', async (t) => {
    const account = await mint(J, admin, { name: 'h131' })
    const before = await J.call('GET', '/sessions', { token: account.token })
    t.equal(before.status, 200, 'used (and cached) before the revocation')
    t.equal((await revoke(account.id)).status, 204)
    const after = await J.call('GET', '/sessions', { token: account.token })
    refused(t, after, 401, 'Invalid or expired service account token')
  })

  void t.test(
    'MINT-6 the name can be minted again after revocation: new id and token',
    async (t) => {
      const first = await mint(J, admin, { name: 'h132' })
      t.equal((await revoke(first.id)).status, 204)
      const second = await mint(J, admin, { name: 'h132' })
      t.equal(second.body.principal, first.body.principal, 'same principal')
      t.not(second.id, first.id, 'new id')
      t.not(second.token, first.token, 'new token')
    },
  )

  void t.test(
    'SA-3 O, no credential: DELETE /service-accounts/nope → 401 (deviation: AgentOS answers 404, no auth needed)',
    async (t) => {
      const O = await stack(t, runtime, oConfig(await store.section()))
      refused(t, await O.call('DELETE', '/service-accounts/nope'), 401, MANAGE_AUTHENTICATION)
      const account = await seedAccount(O.gateway, 'h133', ['sessions:read'])
      const remove = await O.call('DELETE', `/service-accounts/${account.id}`)
      refused(t, remove, 401, MANAGE_AUTHENTICATION)
      const still = await O.call('GET', '/sessions', { token: account.token })
      t.equal(still.status, 200, 'the account was not revoked')
      t.equal(still.upstream?.headers['x-auth-user-id'], 'sa:h133')
    },
  )
})
