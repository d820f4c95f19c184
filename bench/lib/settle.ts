/**
 * When an idle process's memory counts as settled: V8 keeps the garbage of a start or of a burst
 * of work until its memory reducer runs, 8 to 16 s after the last full collection of an idle
 * process (and a few seconds more when it collects more than once), so a reading taken a fixed
 * time after the work is timing luck. The memory phase polls the process instead and reads it once
 * its memory has stopped shrinking. Nothing is collected on purpose: the reading is what the
 * deployed process holds.
 */

/** One reading, `atMs` from the start of the wait. */
export interface MemorySample {
  readonly atMs: number
  /** NaN when the process is gone. */
  readonly rssBytes: number
}

export interface SettleRule {
  /** Never settled before this: the memory reducer's first chance is 8 to 16 s after a full GC. */
  readonly minMs: number
  /** The readings must not have dropped over this last stretch… */
  readonly windowMs: number
  /** …by more than this fraction of the stretch's highest reading… */
  readonly maxDrop: number
  /**
   * …or this many bytes, whichever is more: the RSS of an idle process moves by a page or two
   * without anything settling.
   */
  readonly dropFloorBytes: number
  /** Given up after this long: the reading is taken as it is. */
  readonly maxMs: number
  /** Time between readings. */
  readonly intervalMs: number
}

export const SETTLE_RULE: SettleRule = {
  minMs: 25_000,
  windowMs: 16_000,
  maxDrop: 0.01,
  dropFloorBytes: 1024 * 1024,
  maxMs: 90_000,
  intervalMs: 2_000,
}

export type SettleVerdict = 'settled' | 'wait' | 'gave up'

/** Whether the RSS dropped over the window: its latest value against the window's highest. */
function dropped(window: readonly MemorySample[], rule: SettleRule): boolean {
  const last = (window.at(-1) as MemorySample).rssBytes
  const highest = Math.max(...window.map((s) => s.rssBytes))
  return highest - last > Math.max(highest * rule.maxDrop, rule.dropFloorBytes)
}

/**
 * Settled once `minMs` has passed and the RSS is not lower now than anywhere over the last
 * `windowMs` by more than `maxDrop` (or `dropFloorBytes`); the
 * window counts only when a reading at or before its start exists, so a wait never settles on
 * fewer than `windowMs` of readings. Gave up after `maxMs`. Samples in time order.
 */
export function settleVerdict(
  samples: readonly MemorySample[],
  rule: SettleRule = SETTLE_RULE,
): SettleVerdict {
  const last = samples.at(-1)
  if (last === undefined) return 'wait'
  if (!Number.isFinite(last.rssBytes)) return 'gave up' // the process is gone
  const windowStart = last.atMs - rule.windowMs
  // The latest reading at or before the window's start is its reference.
  let from = -1
  for (let i = samples.length - 1; i >= 0; i -= 1) {
    if ((samples[i] as MemorySample).atMs <= windowStart) {
      from = i
      break
    }
  }
  const settled = last.atMs >= rule.minMs && from !== -1 && !dropped(samples.slice(from), rule)
  if (settled) return 'settled'
  return last.atMs >= rule.maxMs ? 'gave up' : 'wait'
}

export interface Settled {
  /** The first reading and the last. */
  readonly first: MemorySample
  readonly sample: MemorySample
  readonly verdict: Exclude<SettleVerdict, 'wait'>
  /** How long the wait took, in seconds. */
  readonly waitedS: number
}

export interface Clock {
  now(): number
  sleep(ms: number): Promise<void>
}

const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

/**
 * Reads `read` every `intervalMs` until `settleVerdict` says settled or gave up; returns the last
 * reading. `read` returns the RSS (NaN when the process is gone).
 */
export async function waitUntilSettled(
  read: () => Promise<Omit<MemorySample, 'atMs'>>,
  rule: SettleRule = SETTLE_RULE,
  clock: Clock = realClock,
): Promise<Settled> {
  const started = clock.now()
  const samples: MemorySample[] = []
  for (;;) {
    const atMs = clock.now() - started
    samples.push({ atMs, ...(await read()) })
    const verdict = settleVerdict(samples, rule)
    if (verdict !== 'wait') {
      const first = samples[0] as MemorySample
      return { first, sample: samples.at(-1) as MemorySample, verdict, waitedS: atMs / 1000 }
    }
    await clock.sleep(Math.max(0, started + samples.length * rule.intervalMs - clock.now()))
  }
}

const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1)

/**
 * "settled after 28 s: RSS 160.2 → 148.0 MB" (or "not settled after 90 s: …"), the first reading
 * against the last, for the log.
 */
export function describeSettle(settled: Settled): string {
  const { first, sample } = settled
  return `${settled.verdict === 'settled' ? '' : 'not '}settled after ${settled.waitedS.toFixed(0)} s: RSS ${mb(first.rssBytes)} → ${mb(sample.rssBytes)} MB`
}
