import { Registry } from 'prom-client'
import t from 'tap'
import { createServiceAccountMetrics } from '../../../src/service-accounts/metrics.js'
import { ServiceAccountCache } from '../../../src/service-accounts/service-account-cache.js'
import {
  ServicePrincipals,
  type ServiceAccountPrincipal,
} from '../../../src/service-accounts/service-account-principal.js'

const principals = new ServicePrincipals()
const principal = (n: number): ServiceAccountPrincipal =>
  principals.of(
    {
      id: `id-${n}`,
      name: `bot-${n}`,
      userId: null,
      tokenHash: `h${n}`,
      tokenPrefix: 'svc_pat_abcdefgh',
      scopes: ['agents:read'],
      createdAt: 1,
      expiresAt: null,
      lastUsedAt: null,
      lastUsedFrom: null,
      revokedAt: null,
      createdBy: null,
    },
    `h${n}`,
  )

function cache(options: { maxEntries: number; ttlSeconds?: number }) {
  let now = 0
  const registry = new Registry()
  const entries = new ServiceAccountCache({
    ttlSeconds: options.ttlSeconds ?? 60,
    maxEntries: options.maxEntries,
    clock: { monotonic: () => now },
    metrics: createServiceAccountMetrics(registry),
  })
  const store = (...ns: number[]) => {
    for (const n of ns) entries.set(`h${n}`, principal(n), entries.generation)
  }
  const held = (...ns: number[]) => ns.filter((n) => entries.get(`h${n}`) !== undefined)
  const evicted = async (reason: string) =>
    Number(
      new RegExp(`cache_evictions_total\\{reason="${reason}"\\} (\\d+)`).exec(
        await registry.metrics(),
      )?.[1] ?? 0,
    )
  return { entries, store, held, evicted, registry, advance: (ms: number) => (now += ms) }
}

void t.test(
  'a hit returns the very principal stored, fresh while its age is at most the TTL',
  async (t) => {
    const { entries, store, advance, evicted } = cache({ maxEntries: 10, ttlSeconds: 30 })
    store(1)
    const first = entries.get('h1')
    t.equal(first?.serviceAccount.name, 'bot-1')
    advance(30_000)
    t.equal(entries.get('h1'), first, 'age = TTL: still fresh')
    advance(1)
    t.equal(entries.get('h1'), undefined, 'stale')
    t.equal(entries.size, 0, 'a stale entry is dropped when found')
    t.equal(await evicted('stale'), 1)
  },
)

void t.test('TTL 0 caches nothing', async (t) => {
  const { entries, store } = cache({ maxEntries: 10, ttlSeconds: 0 })
  store(1)
  t.equal(entries.size, 0)
})

void t.test(
  'at capacity the least recently used entry goes, one at a time when small',
  async (t) => {
    const { entries, store, held, evicted } = cache({ maxEntries: 3 })
    store(1, 2, 3)
    t.same(held(1), [1], 'entry 1 was used since it was stored')
    store(4)
    t.equal(entries.size, 3)
    t.same(held(1, 3, 4), [1, 3, 4], 'entry 2 was the least recently used')
    t.equal(await evicted('capacity'), 1)
    store(5)
    t.equal(entries.size, 3)
    t.same(held(1, 3, 4, 5).length, 3)
  },
)

void t.test('re-storing a cached token replaces it without evicting another', async (t) => {
  const { entries, store, evicted } = cache({ maxEntries: 2 })
  store(1, 2, 1, 2, 1)
  t.equal(entries.size, 2)
  t.equal(await evicted('capacity'), 0)
})

void t.test('a full large cache evicts exactly the least recently used entries', async (t) => {
  const { entries, store, held, evicted } = cache({ maxEntries: 1_000 })
  for (let n = 0; n < 1_000; n++) store(n)
  t.same(held(0, 1, 2), [0, 1, 2], 'the three oldest were used')
  store(1_000, 1_001)
  t.equal(await evicted('capacity'), 2)
  t.equal(entries.size, 1_000, 'never above its bound')
  t.same(held(0, 1, 2, 1_000, 1_001), [0, 1, 2, 1_000, 1_001], 'used entries stay, the newest kept')
  t.same(held(3, 4), [], 'the least recently used went')
})

void t.test('a hit is counted; an entry stored again is young again', async (t) => {
  const { entries, store, advance, held, registry } = cache({ maxEntries: 10, ttlSeconds: 30 })
  store(1)
  advance(20_000)
  store(1)
  advance(20_000)
  t.same(held(1), [1], 'fresh: stored again 20 s ago')
  t.equal(entries.size, 1)
  t.match(await registry.metrics(), /portcullis_service_account_cache_hits_total 1\n/)
})

void t.test('an eviction during a lookup keeps its result out of the cache', async (t) => {
  const { entries } = cache({ maxEntries: 10 })
  const generation = entries.generation
  entries.evict('h9', 'revoked')
  entries.set('h1', principal(1), generation)
  t.equal(entries.size, 0)
  entries.set('h1', principal(1), entries.generation)
  t.equal(entries.size, 1)
  entries.clear('gap')
  t.equal(entries.size, 0)
})
