import t from 'tap'
import { renderDoc } from '../../../bench/report/doc.js'
import { hostSpeedOf } from '../../../bench/report/host-speed.js'
import { evaluateTargets } from '../../../bench/report/targets.js'
import { EMPTY_REPORT } from './empty-report.js'

const reading = (round: number, slice: number, cpuUsPerVerify: number) => ({
  round,
  slice,
  cpuUsPerVerify,
})

void t.test('a report without readings says nothing of the speed', async (t) => {
  t.equal(hostSpeedOf(EMPTY_REPORT), null)
  t.equal(hostSpeedOf({ hostSpeed: [] }), null)
  t.notMatch(renderDoc(EMPTY_REPORT, evaluateTargets(EMPTY_REPORT)), /Machine speed/)
})

void t.test('readings within a quiet machine’s spread: listed, no warning', async (t) => {
  const report = { ...EMPTY_REPORT, hostSpeed: [reading(1, 1, 20.3), reading(2, 1, 21.9)] }
  const speed = hostSpeedOf(report)
  t.equal(speed?.uneven, false)
  t.match(speed?.line, /read before each round, took 20\.3, 21\.9 µs of CPU \(slowest 1\.08 ×/)
  const doc = renderDoc(report, evaluateTargets(report))
  t.match(doc, /^- Machine speed during the throughput measurements: /m)
  t.notMatch(doc, /speed moved/)
})

void t.test('a machine that slowed during the run is called out', async (t) => {
  const report = {
    ...EMPTY_REPORT,
    hostSpeed: [reading(1, 1, 21.2), reading(1, 2, 30.9), reading(2, 1, 22.0)],
  }
  const speed = hostSpeedOf(report)
  t.equal(speed?.uneven, true)
  t.equal(speed?.spread.toFixed(2), '1.46')
  t.match(speed?.line, /read before each pass over the scenarios, took 21\.2, 30\.9, 22\.0 µs/)
  t.match(
    renderDoc(report, evaluateTargets(report)),
    /> \*\*Warning: the machine's speed moved during the run\*\* \(the same verify took up to 1\.46 × its fastest\)/,
  )
})

void t.test('readings before and after each pass, and the passes measured again', async (t) => {
  const gated = (slice: number, before: number, after: number, attempts: number) => ({
    round: 1,
    slice,
    cpuUsPerVerify: before,
    afterUsPerVerify: after,
    attempts,
  })
  const report = { ...EMPTY_REPORT, hostSpeed: [gated(1, 22.0, 22.4, 1), gated(2, 22.2, 26.0, 3)] }
  const speed = hostSpeedOf(report)
  t.equal(speed?.spread.toFixed(2), '1.18')
  t.equal(speed?.uneven, true)
  t.match(
    speed?.line,
    /read before and after each pass over the scenarios \(before\/after\), took 22\.0\/22\.4, 22\.2\/26\.0 µs of CPU \(slowest 1\.18 × the fastest\)\. A pass over the scenarios is measured only once a reading is within 1\.10 × the run's fastest, and measured again \(up to 3 times, the attempt with the fastest readings kept\) when a reading at either end is not: 1 of 2 were measured again\./,
  )
})
