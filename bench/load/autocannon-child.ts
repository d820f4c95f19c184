/**
 * autocannon in a process of its own (so its CPU is not the harness's, and it can be pinned).
 * Run: node --import tsx bench/load/autocannon-child.ts '<LoadSpec as JSON>'
 * Prints one JSON LoadResult line. Its latencies have millisecond resolution only.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { otherThan } from '../lib/stats.js'
import type { LoadResult } from '../lib/types.js'
import type { LoadSpec } from './generator.js'

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec
const tokens =
  spec.tokensFile === undefined
    ? []
    : readFileSync(spec.tokensFile, 'utf8').split('\n').filter(Boolean)
let index = spec.tokenOffset ?? 0

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.durationS,
  timeout: 10,
  headers: { ...spec.headers },
  ...(tokens.length === 0
    ? {}
    : {
        requests: [
          {
            setupRequest: (request) => {
              index = (index + 1) % tokens.length
              const token = tokens[index] ?? ''
              return {
                ...request,
                headers: { ...request.headers, authorization: `Bearer ${token}` },
              }
            },
          },
        ],
      }),
})

const statuses = Object.fromEntries(
  Object.entries(result.statusCodeStats).map(([status, stats]) => [status, stats.count]),
)
const out: LoadResult = {
  requests: result.requests.total,
  durationS: result.duration,
  unexpected:
    spec.expectStatus === undefined ? result.non2xx : otherThan(statuses, spec.expectStatus),
  errors: result.errors + result.timeouts,
  p50Us: result.latency.p50 * 1000,
  p99Us: result.latency.p99 * 1000,
  statuses,
}
process.stdout.write(`${JSON.stringify(out)}\n`)
