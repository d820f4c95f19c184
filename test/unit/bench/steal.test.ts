import t from 'tap'
import type { Measured } from '../../../bench/lib/measure.js'
import { measureWithLittleSteal, STEAL_ATTEMPTS } from '../../../bench/lib/steal.js'

function measuredWith(stealCores: number, requests: number): Measured {
  return {
    load: { requests, durationS: 10, unexpected: 0, errors: 0, p50Us: 1, p99Us: 2 },
    cpu: {
      sutS: 1,
      upstreamS: 0,
      generatorS: 0,
      harnessS: 0,
      outsideS: 0,
      foreignS: 0,
      stealS: stealCores * 10,
      wallS: 10,
    },
    disturbance: {
      loadBefore: 0,
      loadAfter: 0,
      foreignCores: 0,
      stealCores,
      waitedS: 0,
    },
  }
}

function sequence(steals: number[]) {
  let taken = 0
  return {
    get taken() {
      return taken
    },
    once: async () => measuredWith(steals[taken] as number, ++taken),
  }
}

void t.test('a measurement without steal is taken once', async (t) => {
  const run = sequence([0.02, 0])
  const lines: string[] = []
  const kept = await measureWithLittleSteal(run.once, 0.1, (line) => lines.push(line))
  t.equal(run.taken, 1)
  t.equal(kept.load.requests, 1)
  t.same(lines, [])
})

void t.test('a stolen measurement is taken again until one is not', async (t) => {
  const run = sequence([0.5, 0.05, 0])
  const lines: string[] = []
  const kept = await measureWithLittleSteal(run.once, 0.1, (line) => lines.push(line))
  t.equal(run.taken, 2, 'stops at the first one under the limit')
  t.equal(kept.load.requests, 2, 'and keeps it')
  t.match(lines, [/steal 0\.50 cores \(over 0\.1\): measured again/])
})

void t.test('at most STEAL_ATTEMPTS times, the least stolen kept', async (t) => {
  const run = sequence([0.6, 0.3, 0.45, 0.01])
  const lines: string[] = []
  const kept = await measureWithLittleSteal(run.once, 0.1, (line) => lines.push(line))
  t.equal(run.taken, STEAL_ATTEMPTS)
  t.equal(kept.disturbance.stealCores, 0.3)
  t.equal(kept.load.requests, 2)
  t.match(lines.at(-1), /in 3 attempts: the least stolen kept/)
})
