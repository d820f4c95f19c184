import t from 'tap'
import { BoundedCache, type EvictionReason } from '../../src/bounded-cache.js'

/** A cache of numbers on a clock the test moves, recording what its hooks report. */
function cache(options: { max: number; ttlMs?: number; refreshOnGet?: boolean }) {
  let now = 0
  const counts = { hit: 0, miss: 0 }
  const evictions: [EvictionReason<'revoked' | 'gap'>, number][] = []
  const entries = new BoundedCache<string, number, 'revoked' | 'gap'>({
    ...options,
    clock: { monotonic: () => now },
    hooks: {
      hit: () => (counts.hit += 1),
      miss: () => (counts.miss += 1),
      evicted: (reason, count) => evictions.push([reason, count]),
    },
  })
  return { entries, counts, evictions, advance: (ms: number) => (now += ms) }
}

void t.test('LRU bound: the least recently used entry goes, counted as capacity', async (t) => {
  const { entries, evictions } = cache({ max: 2 })
  entries.set('a', 1)
  entries.set('b', 2)
  t.equal(entries.get('a'), 1, 'a is now the most recently used')
  entries.set('c', 3)
  t.equal(entries.size, 2)
  t.equal(entries.get('b'), undefined, 'b went')
  t.equal(entries.get('a'), 1)
  t.same(evictions, [['capacity', 1]])
})

void t.test('TTL on the injected clock: fresh while the age is at most the TTL', async (t) => {
  const { entries, advance, evictions } = cache({ max: 10, ttlMs: 1_000 })
  entries.set('a', 1, entries.generation)
  advance(1_000)
  t.equal(entries.get('a'), 1, 'age = TTL: fresh (an entry stored at time 0 ages too)')
  advance(1)
  t.equal(entries.get('a'), undefined, 'stale')
  t.equal(entries.size, 0, 'dropped when found stale')
  t.same(evictions, [['stale', 1]])
})

void t.test('refreshOnGet: a read makes the entry young again', async (t) => {
  const { entries, advance } = cache({ max: 10, ttlMs: 1_000, refreshOnGet: true })
  entries.set('a', 1)
  advance(800)
  t.equal(entries.get('a'), 1)
  advance(800)
  t.equal(entries.get('a'), 1, 'read 800 ms ago')
  advance(1_001)
  t.equal(entries.get('a'), undefined)
})

void t.test('hooks count hits and misses', async (t) => {
  const { entries, counts } = cache({ max: 10 })
  entries.get('a')
  entries.set('a', 0)
  t.equal(entries.get('a'), 0, 'a falsy value is a hit')
  t.same(counts, { hit: 1, miss: 1 })
})

void t.test('generation: a result read before an invalidation is not stored', async (t) => {
  const { entries, evictions } = cache({ max: 10 })
  entries.set('a', 1)
  const before = entries.generation
  entries.invalidate('a', 'revoked')
  t.equal(entries.get('a'), undefined)
  entries.set('b', 2, before)
  t.equal(entries.size, 0, 'stored under an older generation: dropped')
  entries.set('b', 2, entries.generation)
  t.equal(entries.get('b'), 2)
  const beforeClear = entries.generation
  entries.clear('gap')
  t.equal(entries.size, 0)
  entries.set('c', 3, beforeClear)
  t.equal(entries.size, 0, 'clear moves the generation too')
  t.same(evictions, [
    ['revoked', 1],
    ['gap', 1],
  ])
})

void t.test(
  'follow: a newer outside generation empties the cache, an older one is ignored',
  async (t) => {
    const { entries } = cache({ max: 10 })
    entries.follow(3)
    entries.set('a', 1, 3)
    entries.follow(3)
    entries.follow(2)
    t.equal(entries.get('a'), 1)
    entries.set('late', 1, 2)
    t.equal(entries.get('late'), undefined, 'read under generation 2: not stored')
    entries.follow(4)
    t.equal(entries.get('a'), undefined)
    t.equal(entries.generation, 4)
  },
)

void t.test('delete counts only with a reason and only what was there', async (t) => {
  const { entries, evictions } = cache({ max: 10 })
  entries.set('a', 1)
  entries.set('b', 2)
  t.ok(entries.delete('a'))
  t.ok(entries.delete('b', 'revoked'))
  t.notOk(entries.delete('b', 'revoked'))
  entries.clear('gap')
  t.same(evictions, [['revoked', 1]], 'an empty clear counts nothing')
})

void t.test('expired: a value that no longer holds is dropped as stale, a miss', async (t) => {
  let deadline = 10
  const evictions: string[] = []
  let misses = 0
  const entries = new BoundedCache<string, number>({
    max: 10,
    expired: (value) => value <= deadline,
    hooks: { miss: () => (misses += 1), evicted: (reason) => evictions.push(reason) },
  })
  entries.set('a', 20)
  t.equal(entries.get('a'), 20)
  deadline = 20
  t.equal(entries.get('a'), undefined)
  t.equal(entries.size, 0)
  t.same(evictions, ['stale'])
  t.equal(misses, 1)
})

void t.test('max 0 holds nothing and calls no hook; remember returns its value', async (t) => {
  const { entries, counts } = cache({ max: 0 })
  t.equal(entries.remember('a', 1), 1)
  entries.set('b', 2)
  t.equal(entries.get('a'), undefined)
  t.equal(entries.size, 0)
  t.same(counts, { hit: 0, miss: 0 })
  const memo = new BoundedCache<string, number>({ max: 2 })
  t.equal(memo.get('x') ?? memo.remember('x', 7), 7)
  t.equal(memo.get('x'), 7)
})

void t.test('without hooks or clock: the system clock and no counting', async (t) => {
  const entries = new BoundedCache<string, number>({ max: 2, ttlMs: 60_000 })
  entries.set('a', 1)
  t.equal(entries.get('a'), 1)
  t.ok(entries.delete('a', undefined))
  entries.set('b', 2)
  entries.clear()
  t.equal(entries.size, 0)
})
