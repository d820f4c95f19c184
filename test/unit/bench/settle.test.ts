import t from 'tap'
import {
  describeSettle,
  SETTLE_RULE,
  settleVerdict,
  waitUntilSettled,
  type MemorySample,
  type SettleRule,
} from '../../../bench/lib/settle.js'

const MB = 1024 * 1024

/** The rule these cases are written for: the bench's, with a 10 s window. */
const RULE: SettleRule = { ...SETTLE_RULE, windowMs: 10_000 }
const verdict = (samples: readonly MemorySample[], rule: SettleRule = RULE) =>
  settleVerdict(samples, rule)

/** Readings every 2 s from 0, RSS in MB. */
function every2s(rssMb: readonly number[]): MemorySample[] {
  return rssMb.map((rss, i) => ({ atMs: i * 2_000, rssBytes: rss * MB }))
}

const flat = (n: number, mb: number) => Array.from({ length: n }, () => mb)

void t.test('nothing read yet: wait', async (t) => {
  t.equal(verdict([]), 'wait')
})

void t.test('flat readings settle at the minimum wait, not before', async (t) => {
  // 0, 2, …, 24 s: under 25 s.
  t.equal(verdict(every2s(flat(13, 100))), 'wait')
  // 0, 2, …, 26 s.
  t.equal(verdict(every2s(flat(14, 100))), 'settled')
})

void t.test(
  'a drop within the last 10 s keeps it waiting until 10 s have passed flat',
  async (t) => {
    // 100 MB until 24 s, then the memory reducer: 80 MB from 26 s.
    const rss = [...flat(13, 100), ...flat(20, 80)]
    const samples = every2s(rss)
    const verdictAt = (s: number) => verdict(samples.slice(0, s / 2 + 1))
    t.equal(verdictAt(26), 'wait', 'dropped 20 % just now')
    t.equal(verdictAt(34), 'wait', 'the window from 24 s still holds the 100 MB')
    t.equal(verdictAt(36), 'settled', '10 s flat after the drop')
  },
)

void t.test('drops up to 1 % (or 1 MB) are noise; growth is not a drop', async (t) => {
  t.equal(verdict(every2s([...flat(13, 200), 199, 198.5])), 'settled', '0.75 % down')
  t.equal(verdict(every2s([...flat(13, 200), 197, 197])), 'wait', '1.5 % down')
  t.equal(
    verdict(every2s([...flat(14, 40), 39.2])),
    'settled',
    '0.8 MB of 40 MB: over 1 %, under 1 MB',
  )
  t.equal(verdict(every2s([...flat(14, 40), 38.5])), 'wait', 'but not 1.5 MB')
  t.equal(
    verdict(every2s([100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220, 230])),
    'settled',
    'growing',
  )
})

void t.test('only the last 10 s count: an old drop does not keep it waiting', async (t) => {
  // Dropped at 4 s, flat since.
  t.equal(verdict(every2s([150, 150, 100, ...flat(11, 100)])), 'settled')
})

void t.test("the latest reading is compared with the window's highest", async (t) => {
  // Back up is fine: the latest reading is what is compared.
  t.equal(verdict(every2s([...flat(12, 100), 90, 100])), 'settled')
  // Down at the end is not.
  t.equal(verdict(every2s([...flat(12, 100), 100, 90])), 'wait')
})

void t.test('the window needs a reading at or before its start', async (t) => {
  const rule: SettleRule = { ...RULE, minMs: 0 }
  // 0 to 8 s: the window from -2 s has no reference.
  t.equal(verdict(every2s(flat(5, 100)), rule), 'wait')
  t.equal(verdict(every2s(flat(6, 100)), rule), 'settled')
  // A long gap between readings: the reference is the last one before the window.
  const gap: MemorySample[] = [
    { atMs: 0, rssBytes: 200 * MB },
    { atMs: 30_000, rssBytes: 100 * MB },
  ]
  t.equal(verdict(gap), 'wait', 'dropped since the reading before the window')
})

void t.test('gives up at the bound, with whatever it has', async (t) => {
  // Shrinking by 5 % every 2 s, never settling.
  const rss = Array.from({ length: 46 }, (_, i) => 500 * 0.95 ** i)
  const samples = every2s(rss)
  t.equal(verdict(samples.slice(0, 45)), 'wait', 'at 88 s')
  t.equal(verdict(samples), 'gave up', 'at 90 s')
})

void t.test('a process gone gives up', async (t) => {
  const gone = [...every2s(flat(3, 100)), { atMs: 6_000, rssBytes: Number.NaN }]
  t.equal(verdict(gone), 'gave up')
})

/** A clock that moves only when slept on (and 5 ms per reading). */
function fakeClock() {
  let now = 1_000
  return {
    clock: {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms
      },
    },
    tick: (ms: number) => (now += ms),
  }
}

void t.test('the loop reads every 2 s until settled and reports how long it took', async (t) => {
  const { clock, tick } = fakeClock()
  // The memory reducer at 20 s: 100 MB down to 70.
  const read = async () => {
    const at = clock.now() - 1_000
    tick(5)
    return { rssBytes: (at < 20_000 ? 100 : 70) * MB }
  }
  const settled = await waitUntilSettled(read, RULE, clock)
  t.equal(settled.verdict, 'settled')
  t.equal(settled.sample.rssBytes, 70 * MB)
  t.equal(settled.sample.atMs, 30_000, '10 s after the drop, on the 2 s grid')
  t.equal(settled.waitedS, 30)
  t.equal(describeSettle(settled), 'settled after 30 s: RSS 100.0 → 70.0 MB')
})

void t.test('the loop gives up at the bound', async (t) => {
  const { clock } = fakeClock()
  let rss = 500 * MB
  const rule: SettleRule = { ...RULE, maxMs: 40_000 }
  const settled = await waitUntilSettled(async () => ({ rssBytes: (rss *= 0.9) }), rule, clock)
  t.equal(settled.verdict, 'gave up')
  t.equal(settled.sample.atMs, 40_000)
  t.equal(settled.first.rssBytes, 450 * MB)
  t.equal(
    describeSettle(settled),
    `not settled after 40 s: RSS 450.0 → ${(500 * 0.9 ** 21).toFixed(1)} MB`,
  )
})

void t.test(
  "the bench's rule wants 16 s without a drop: 12 s flat, then dropped again",
  async (t) => {
    // Seen in a gateway left idle by hand: a collection at 14 s, 12 s flat, another at 28 s.
    const samples = every2s([...flat(7, 158), ...flat(7, 150), ...flat(20, 145)])
    const at = (s: number) => settleVerdict(samples.slice(0, s / 2 + 1))
    t.equal(
      verdict(samples.slice(0, 14)),
      'settled',
      'a 10 s window would have read 150 MB at 26 s',
    )
    t.equal(at(26), 'wait', '12 s flat is not enough')
    t.equal(at(42), 'wait', '14 s flat after the second drop')
    t.equal(at(44), 'settled', '16 s flat after it')
  },
)
