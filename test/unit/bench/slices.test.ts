import t from 'tap'
import type { Measured } from '../../../bench/lib/measure.js'
import { combineSlices, sliceCount } from '../../../bench/lib/slices.js'

function slice(
  requests: number,
  sutS: number,
  wallS: number,
  p50Us: number,
  extra: Partial<Measured['load']> = {},
): Measured {
  return {
    load: {
      requests,
      durationS: wallS,
      unexpected: 0,
      errors: 0,
      p50Us,
      p99Us: p50Us * 4,
      ...extra,
    },
    cpu: {
      sutS,
      upstreamS: sutS / 2,
      generatorS: 0.1,
      harnessS: 0.01,
      outsideS: 0,
      foreignS: wallS / 10,
      stealS: wallS / 20,
      wallS,
    },
    disturbance: {
      loadBefore: requests,
      loadAfter: requests + 1,
      foreignCores: 0.1,
      stealCores: 0.05,
      waitedS: 1,
    },
  }
}

void t.test(
  'a measurement is cut into slices of about the asked length, at least one',
  async (t) => {
    t.equal(sliceCount(10, 2), 5)
    t.equal(sliceCount(10, 3), 3, 'rounded to the nearest count')
    t.equal(sliceCount(2, 2), 1)
    t.equal(sliceCount(2, 10), 1, 'a slice longer than the measurement is the measurement')
    t.equal(sliceCount(10, 0.1), 10, 'no slice shorter than a second')
    t.equal(sliceCount(10, 0), 1, '0: one piece')
  },
)

void t.test('slices add up to one measurement', async (t) => {
  const combined = combineSlices([
    slice(1_000, 0.2, 2, 100, { unexpected: 1, statuses: { '401': 999, '200': 1 } }),
    slice(3_000, 0.4, 2, 300, { errors: 2, statuses: { '401': 3_000 } }),
  ])
  t.equal(combined.load.requests, 4_000)
  t.equal(combined.load.durationS, 4)
  t.equal(combined.load.unexpected, 1)
  t.equal(combined.load.errors, 2)
  t.same(combined.load.statuses, { '401': 3_999, '200': 1 })
  t.equal(combined.load.p50Us, 250, 'request-weighted: (1,000 × 100 + 3,000 × 300) / 4,000')
  t.equal(combined.load.p99Us, 1_000)
  t.ok(Math.abs(combined.cpu.sutS - 0.6) < 1e-9)
  t.ok(Math.abs(combined.cpu.upstreamS - 0.3) < 1e-9)
  t.equal(combined.cpu.wallS, 4)
  t.ok(Math.abs(combined.disturbance.foreignCores - 0.1) < 1e-9, 'foreign seconds over wall')
  t.ok(Math.abs(combined.disturbance.stealCores - 0.05) < 1e-9)
  t.equal(combined.disturbance.loadBefore, 1_000, 'load average before the first slice')
  t.equal(combined.disturbance.loadAfter, 3_001, 'and after the last')
  t.equal(combined.disturbance.waitedS, 2)
  // CPU per request over the whole is the summed CPU over the summed requests, not a mean of
  // the slices' figures (200 and 133 µs): the slice that answered more weighs more.
  t.ok(Math.abs((combined.cpu.sutS * 1e6) / combined.load.requests - 150) < 1e-6)
})

void t.test('one slice is itself; no slice is an error; counts absent stay absent', async (t) => {
  const only = slice(10, 0.1, 1, 50)
  t.equal(combineSlices([only]), only)
  t.throws(() => combineSlices([]), /no slices/)
  t.notOk('statuses' in combineSlices([slice(1, 0.1, 1, 5), slice(1, 0.1, 1, 5)]).load)
  t.equal(
    combineSlices([slice(0, 0, 1, 7), slice(0, 0, 1, 9)]).load.p50Us,
    7,
    'no requests at all: the first slice’s figure',
  )
})
