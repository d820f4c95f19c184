/**
 * The line in force over the gateway's life, with a scripted upstream: what a start decides, when
 * the version is read again, what requests wait for, and when they are refused.
 */
import t, { type Test } from 'tap'
import { createLogger } from '../../../src/logger.js'
import { StartupError } from '../../../src/startup-error.js'
import type { Detection } from '../../../src/upstream/agentos-detection.js'
import {
  AgentOsLineWatch,
  type AgentOsSetting,
  type LineInForce,
} from '../../../src/upstream/agentos-line-watch.js'
import type { ProbeOutcome } from '../../../src/upstream/agentos-probe.js'
import { LogCapture } from '../../helpers/log-capture.js'
import { waitFor, within } from '../../helpers/wait.js'

const TWO_NINE: Detection = { kind: 'line', line: '2.9', agnoVersion: '2.9.0', basis: 'release' }
const THREE_ZERO: Detection = {
  kind: 'line',
  line: '3.0',
  agnoVersion: '3.0.0a3',
  basis: 'release',
}
const NEWER: Detection = { kind: 'unsupported', agnoVersion: '3.1.0', direction: 'newer' }
const REFUSED: ProbeOutcome = { kind: 'unreachable', why: 'refused' }

/** An upstream whose answers the test gives, one per read, when it chooses. */
class ScriptedUpstream {
  readonly reads: ((outcome: ProbeOutcome) => void)[] = []
  #next: ProbeOutcome[] = []

  /** Answers the next reads at once with these. */
  answers(...outcomes: ProbeOutcome[]): void {
    this.#next.push(...outcomes)
  }

  probe = (): Promise<ProbeOutcome> => {
    const ready = this.#next.shift()
    if (ready !== undefined) {
      this.reads.push(() => undefined)
      return Promise.resolve(ready)
    }
    return new Promise((resolve) => this.reads.push(resolve))
  }

  /** Answers the read in progress (the last one asked). */
  answer(outcome: ProbeOutcome): void {
    const read = this.reads.at(-1)
    if (read === undefined) throw new Error('no read in progress')
    read(outcome)
  }
}

interface Watched {
  readonly watch: AgentOsLineWatch
  readonly upstream: ScriptedUpstream
  readonly applied: LineInForce[]
  readonly logs: LogCapture
}

function watched(
  t: Test,
  setting: AgentOsSetting,
  options: {
    apply?: (inForce: LineInForce) => Promise<void>
    holdLimitMs?: number
    retryMs?: number
  } = {},
): Watched {
  const upstream = new ScriptedUpstream()
  const applied: LineInForce[] = []
  const logs = new LogCapture()
  const watch = new AgentOsLineWatch({
    setting,
    upstreamUrl: 'http://127.0.0.1:7777',
    probe: upstream.probe,
    apply: async (inForce) => {
      applied.push(inForce)
      await options.apply?.(inForce)
    },
    logger: createLogger({ level: 'debug', destination: logs }),
    holdLimitMs: options.holdLimitMs,
    retry: { firstMs: options.retryMs ?? 5, maxMs: 4 * (options.retryMs ?? 5) },
  })
  t.teardown(() => watch.close())
  return { watch, upstream, applied, logs }
}

function messages(logs: LogCapture): string[] {
  return logs.records().map((record) => String(record.msg))
}

void t.test('auto: the line read at start is in force at once', async (t) => {
  const { watch, upstream, applied, logs } = watched(t, 'auto')
  upstream.answers(THREE_ZERO)
  await watch.start()
  watch.follow()
  t.same(watch.inForce, { line: '3.0', source: 'detected', upstream: THREE_ZERO })
  t.equal(watch.admit(), true, 'requests are decided without waiting')
  t.same(watch.readiness(), { ready: true, detail: '3.0 (detected: agno 3.0.0a3)' })
  t.same(watch.labels(), { line: '3.0', version: '3.0.0a3', source: 'detected' })
  t.same(applied, [], 'the first generation is built from inForce, not applied')
  t.same(messages(logs), ['AgentOS line detected'])
})

void t.test(
  'auto: a start that finds an unsupported or unreadable upstream is refused',
  async (t) => {
    for (const outcome of [NEWER, { kind: 'unreadable', why: 'GET /info answered 404' }] as const) {
      const { watch, upstream } = watched(t, 'auto')
      upstream.answers(outcome)
      const error = await watch.start().catch((thrown: unknown) => thrown)
      t.type(error, StartupError)
      t.equal((error as StartupError).exitCode, 2)
      t.match(
        (error as Error).message,
        /^upstream\.agentos_version, PORTCULLIS_AGENTOS_VERSION is auto/,
      )
    }
  },
)

void t.test(
  'auto: no upstream at start, then requests wait for a read and are refused',
  async (t) => {
    const { watch, upstream, applied } = watched(t, 'auto', { retryMs: 600_000 })
    upstream.answers(REFUSED)
    await watch.start()
    watch.follow()
    t.equal(watch.inForce, undefined)
    t.same(watch.readiness(), {
      ready: false,
      detail: 'unknown: the upstream has not answered (refused); retrying',
    })
    t.equal(watch.labels(), undefined)
    const admitted = watch.admit()
    t.not(admitted, true, 'never decided without a line')
    upstream.answer(REFUSED)
    t.equal(await admitted, false, 'refused when the read does not settle a line')
    const later = watch.admit()
    upstream.answer(TWO_NINE)
    t.equal(await later, true, 'the read that finds the upstream admits the request')
    t.same(applied, [{ line: '2.9', source: 'detected', upstream: TWO_NINE }])
    t.same(watch.readiness(), { ready: true, detail: '2.9 (detected: agno 2.9.0)' })
  },
)

void t.test('auto: the background retry finds the upstream without any request', async (t) => {
  const { watch, upstream } = watched(t, 'auto')
  upstream.answers(REFUSED, REFUSED, TWO_NINE)
  await watch.start()
  watch.follow()
  await waitFor(() => watch.inForce !== undefined, 'the retries to read the line')
  t.equal(watch.inForce?.line, '2.9')
  t.equal(upstream.reads.length, 3, 'backing off: one read per attempt')
})

void t.test('auto: a restart as another line is applied before the next request', async (t) => {
  const order: string[] = []
  const { watch, upstream, logs } = watched(t, 'auto', {
    apply: async (inForce) => {
      order.push(`applied ${inForce.line}`)
    },
  })
  upstream.answers(TWO_NINE)
  await watch.start()
  watch.follow()
  watch.suspect()
  const admitted = watch.admit()
  t.not(admitted, true, 'a request during the read waits')
  void (admitted as Promise<boolean>).then(() => order.push('admitted'))
  upstream.answer(THREE_ZERO)
  t.equal(await admitted, true)
  t.same(order, ['applied 3.0', 'admitted'])
  t.equal(watch.inForce?.line, '3.0')
  t.match(logs.records().at(-1), { msg: 'AgentOS line changed', previous: '2.9' })
  t.equal(watch.admit(), true, 'settled: no more waiting')
})

void t.test('auto: all connections closed: the next request waits for one read', async (t) => {
  const { watch, upstream } = watched(t, 'auto')
  upstream.answers(TWO_NINE)
  await watch.start()
  watch.follow()
  watch.connectionsClosed()
  t.equal(upstream.reads.length, 1, 'nothing read before a request needs it')
  const requests = [watch.admit(), watch.admit(), watch.admit()]
  t.ok(requests.every((admitted) => admitted !== true))
  t.equal(upstream.reads.length, 2, 'one read for all of them')
  upstream.answer(TWO_NINE)
  t.same(await Promise.all(requests.map(async (admitted) => admitted)), [true, true, true])
})

void t.test('auto: a reason to read again during a read queues one more read', async (t) => {
  const { watch, upstream } = watched(t, 'auto')
  upstream.answers(TWO_NINE)
  await watch.start()
  watch.follow()
  watch.suspect()
  t.equal(upstream.reads.length, 2)
  watch.suspect()
  const admitted = watch.admit()
  const again = watch.admit()
  upstream.answer(TWO_NINE)
  await waitFor(() => upstream.reads.length === 3, 'the queued read')
  upstream.answer(THREE_ZERO)
  t.same(await Promise.all([admitted, again]), [true, true])
  t.equal(watch.inForce?.line, '3.0', 'decided with the read that began after the suspicion')
  t.equal(upstream.reads.length, 3)
})

void t.test('auto: a read that does not come in time: refused, bounded', async (t) => {
  const { watch, upstream } = watched(t, 'auto', { holdLimitMs: 50 })
  upstream.answers(TWO_NINE)
  await watch.start()
  watch.follow()
  watch.suspect()
  t.equal(await within(watch.admit() as Promise<boolean>, 'the hold limit', 5_000), false)
  upstream.answer(REFUSED)
  await waitFor(() => !watch.readiness().ready, 'the failed read to show')
  t.equal(
    watch.readiness().detail,
    '2.9 (detected: agno 2.9.0); re-reading: the upstream does not answer (refused)',
  )
  t.same(watch.labels(), { line: '2.9', version: '2.9.0', source: 'detected' })
})

void t.test(
  'auto: an upstream that comes back unsupported is refused until it is not',
  async (t) => {
    // Retries far apart: the test reads again when it chooses.
    const { watch, upstream, logs } = watched(t, 'auto', { retryMs: 600_000 })
    upstream.answers(TWO_NINE)
    await watch.start()
    watch.follow()
    watch.suspect()
    const held = watch.admit()
    upstream.answer(NEWER)
    t.equal(await held, false)
    t.equal(watch.inForce, undefined)
    t.equal(await watch.admit(), false, 'refused at once: the upstream answered')
    t.same(watch.readiness(), {
      ready: false,
      detail:
        'none: the upstream reports agno 3.1.0, newer than every AgentOS line with a route catalogue (2.9, 3.0)',
    })
    t.match(logs.records().at(-1), { level: 50, agentos: /agno 3\.1\.0/ })
    watch.suspect()
    const next = watch.admit()
    upstream.answer(THREE_ZERO)
    t.equal(await next, true)
    t.equal(watch.inForce?.line, '3.0')
  },
)

void t.test('auto: a line that cannot be applied keeps requests out', async (t) => {
  let fail = true
  const { watch, upstream, logs } = watched(t, 'auto', {
    apply: async () => {
      if (fail) throw new Error('key file gone')
    },
    retryMs: 600_000,
  })
  upstream.answers(TWO_NINE)
  await watch.start()
  watch.follow()
  watch.suspect()
  const admitted = watch.admit()
  upstream.answer(THREE_ZERO)
  t.equal(await admitted, false)
  t.match(logs.records().at(-1), { level: 50, msg: /cannot be applied/ })
  fail = false
  const next = watch.admit()
  t.not(next, true, 'the next request asks again')
  upstream.answer(THREE_ZERO)
  t.equal(await next, true)
})

void t.test('the readiness probe reaching the upstream again is a reason to read', async (t) => {
  const { watch, upstream } = watched(t, 'auto')
  upstream.answers(TWO_NINE)
  await watch.start()
  watch.follow()
  watch.upstreamAnswered(true)
  t.equal(upstream.reads.length, 1, 'answering all along: nothing to read')
  watch.upstreamAnswered(false)
  watch.upstreamAnswered(true)
  t.equal(upstream.reads.length, 2)
})

void t.test('close: waiting requests are refused, nothing is read any more', async (t) => {
  const { watch, upstream } = watched(t, 'auto')
  upstream.answers(TWO_NINE)
  await watch.start()
  watch.follow()
  watch.suspect()
  const admitted = watch.admit()
  watch.close()
  t.equal(await admitted, false)
  watch.suspect()
  t.equal(await watch.admit(), false)
})

void t.test('pinned: in force at once; a contradiction is applied and warned', async (t) => {
  const { watch, upstream, applied, logs } = watched(t, '3.0')
  await watch.start()
  watch.follow()
  t.same(watch.inForce, { line: '3.0', source: 'pinned', upstream: undefined })
  t.equal(watch.admit(), true)
  t.same(watch.readiness(), { ready: true, detail: '3.0 (pinned; upstream not read yet)' })
  t.same(watch.labels(), { line: '3.0', version: 'unknown', source: 'pinned' })
  upstream.answer(TWO_NINE)
  await waitFor(() => applied.length === 1, 'the contradiction to be applied')
  t.same(applied[0], { line: '3.0', source: 'pinned', upstream: TWO_NINE })
  t.same(watch.readiness(), {
    ready: true,
    detail: '3.0 (pinned; upstream reports agno 2.9.0: a mismatch)',
  })
  t.match(logs.records().at(-1), {
    level: 40,
    msg: 'upstream.agentos_version pins 3.0, but the upstream reports agno 2.9.0: unless auth.deny_unmapped_routes is set, routes the 3.0 catalogue does not know are denied',
  })
  t.same(watch.labels(), { line: '3.0', version: '2.9.0', source: 'pinned' })

  watch.suspect()
  upstream.answer(TWO_NINE)
  watch.connectionsClosed()
  t.equal(watch.admit(), true, 'a pinned line never waits')
  await waitFor(() => upstream.reads.length === 3, 'the read the request asked for')
  t.equal(applied.length, 1, 'the same report: nothing to apply, nothing logged again')
  upstream.answer(THREE_ZERO)
  await waitFor(() => applied.length === 2, 'the agreement to be applied')
  t.equal(messages(logs).at(-1), 'the upstream now reports the pinned AgentOS line')
  t.equal(watch.readiness().detail, '3.0 (pinned; upstream reports agno 3.0.0a3)')
})

void t.test('pinned: an upstream that does not answer is retried, the line stays', async (t) => {
  const { watch, upstream } = watched(t, '2.9')
  upstream.answers(REFUSED)
  await watch.start()
  watch.follow()
  await waitFor(() => upstream.reads.length === 2, 'a retry')
  t.same(watch.readiness(), {
    ready: true,
    detail: '2.9 (pinned; upstream not reachable: refused)',
  })
  t.equal(watch.admit(), true)
  upstream.answer({ kind: 'unreadable', why: 'GET /info answered 404' })
  await waitFor(() => watch.inForce?.upstream !== undefined, 'the answer')
  t.equal(
    watch.describe(),
    '2.9 (pinned; upstream reports an answer that does not say which AgentOS it is (GET /info answered 404): a mismatch)',
  )
  t.same(watch.labels(), { line: '2.9', version: 'unknown', source: 'pinned' })
})

void t.test('nothing is read in the background before follow()', async (t) => {
  const pinned = watched(t, '3.0')
  await pinned.watch.start()
  t.equal(pinned.upstream.reads.length, 0, 'a pinned line is not read at start')
  pinned.watch.follow()
  t.equal(pinned.upstream.reads.length, 1, 'but once followed')
  const auto = watched(t, 'auto')
  auto.upstream.answers(REFUSED)
  await auto.watch.start()
  auto.watch.follow()
  await waitFor(() => auto.upstream.reads.length === 2, 'the retry of an upstream not answering')
})

void t.test(
  'pinned: a contradiction that cannot be applied is applied by the next read',
  async (t) => {
    let fail = true
    const { watch, upstream, applied } = watched(t, '3.0', {
      apply: async () => {
        if (fail) throw new Error('key file gone')
      },
      retryMs: 600_000,
    })
    await watch.start()
    watch.follow()
    upstream.answer(TWO_NINE)
    await waitFor(() => applied.length === 1, 'the failed apply')
    t.equal(watch.inForce?.upstream, undefined, 'not in force')
    fail = false
    watch.suspect()
    upstream.answer(TWO_NINE)
    await waitFor(() => applied.length === 2, 'the second apply')
    t.same(watch.inForce?.upstream, TWO_NINE)
  },
)
