/**
 * An open-loop generator at a fixed request rate, with microsecond latencies (autocannon's are
 * whole milliseconds). Latency runs from the moment a request is handed to the client to the end
 * of its response body. Run: node --import tsx bench/load/fixed-rate-child.ts '<FixedRateSpec>'
 * Prints one JSON FixedRateResult line.
 */
import { readFileSync } from 'node:fs'
import { Pool } from 'undici'
import { otherThan, percentileOfSorted } from '../lib/stats.js'
import type { FixedRateResult, FixedRateSpec } from './fixed-rate.js'

const spec = JSON.parse(process.argv[2] ?? '{}') as FixedRateSpec
const url = new URL(spec.url)
const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 })
const tokens =
  spec.tokensFile === undefined
    ? []
    : readFileSync(spec.tokensFile, 'utf8').split('\n').filter(Boolean)
const path = `${url.pathname}${url.search}`
const latencies: number[] = []
const statuses: Record<string, number> = {}
let errors = 0
let inFlight = 0
let sent = 0
let skipped = 0
let tokenIndex = 0
const maxInFlight = spec.connections * 4

function headers(): Record<string, string> {
  if (tokens.length === 0) return { ...spec.headers }
  tokenIndex = (tokenIndex + 1) % tokens.length
  return { ...spec.headers, authorization: `Bearer ${tokens[tokenIndex] ?? ''}` }
}

function fire(measured: boolean): void {
  inFlight += 1
  const begin = process.hrtime.bigint()
  pool
    .request({ method: 'GET', path, headers: headers() })
    .then(async (res) => {
      await res.body.dump()
      if (measured) {
        latencies.push(Number(process.hrtime.bigint() - begin) / 1_000)
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1
      }
    })
    .catch(() => {
      if (measured) errors += 1
    })
    .finally(() => {
      inFlight -= 1
    })
}

const total = spec.warmupS + spec.durationS
const started = performance.now()
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const elapsed = (performance.now() - started) / 1000
    if (elapsed >= total) {
      clearInterval(timer)
      resolve()
      return
    }
    const due = Math.floor(elapsed * spec.rate) - sent
    for (let n = 0; n < due; n++) {
      sent += 1
      const measured = elapsed >= spec.warmupS
      if (inFlight >= maxInFlight) {
        if (measured) skipped += 1
        continue
      }
      fire(measured)
    }
  }, 1)
})
const drainUntil = performance.now() + 10_000
while (inFlight > 0 && performance.now() < drainUntil) {
  await new Promise((resolve) => setTimeout(resolve, 5))
}
await pool.close()

const sorted = latencies.sort((a, b) => a - b)
const expected = spec.expectStatus
const out: FixedRateResult = {
  requests: sorted.length,
  durationS: spec.durationS,
  unexpected: expected === undefined ? 0 : otherThan(statuses, expected),
  errors,
  p50Us: percentileOfSorted(sorted, 50),
  p99Us: percentileOfSorted(sorted, 99),
  statuses,
  skipped,
}
process.stdout.write(`${JSON.stringify(out)}\n`)
