import t from 'tap'
import { makeRoom } from '../../../src/service-accounts/make-room.js'

const filled = (count: number) => new Map(Array.from({ length: count }, (_, n) => [n, n]))

void t.test('nothing is deleted below the bound', async (t) => {
  const map = filled(3)
  t.equal(makeRoom(map, 4), 0)
  t.equal(map.size, 3)
})

void t.test('the oldest go first, one at a time for small maps', async (t) => {
  const map = filled(3)
  t.equal(makeRoom(map, 3), 1)
  t.same([...map.keys()], [1, 2])
})

void t.test('a map over its bound is brought below it', async (t) => {
  const map = filled(10)
  t.equal(makeRoom(map, 4), 7)
  t.same([...map.keys()], [7, 8, 9])
})

void t.test('large maps lose a batch of 1/128 of the bound', async (t) => {
  const map = filled(12_800)
  t.equal(makeRoom(map, 12_800), 100)
  t.equal(map.keys().next().value, 100)
})

void t.test('spared entries move to the end and are deleted on the next pass', async (t) => {
  const map = filled(3)
  const spared = new Set<number>()
  const spare = (value: number) => {
    if (spared.has(value)) return false
    spared.add(value)
    return true
  }
  t.equal(makeRoom(map, 3, spare), 1)
  t.same([...map.keys()], [1, 2], 'all spared once, then the oldest went')
})

void t.test('a full map keeps its bound through many insertions', async (t) => {
  const max = 50_000
  const map = filled(max)
  let next = max
  let deleted = 0
  for (let n = 0; n < 100_000; n++) {
    deleted += makeRoom(map, max)
    map.set(next++, n)
  }
  t.ok(map.size <= max)
  t.equal(deleted, 100_000 + max - map.size, 'everything inserted beyond the bound was deleted')
})
