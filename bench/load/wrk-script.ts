/** The Lua scripts wrk runs, and the parsing of what they print. Pure, so tested. */
import { otherThan } from '../lib/stats.js'
import type { LoadResult } from '../lib/types.js'

export const WRK_MARKER = 'WRK_JSON '

export interface WrkRequestSpec {
  /** Headers sent on every request. */
  readonly headers: Readonly<Record<string, string>>
  /** When set, each request takes the next line of this file as `Authorization: Bearer …`. */
  readonly tokensFile?: string
  readonly tokenOffset?: number
  /** Count the answers per status (for scenarios whose answers are not 2xx). */
  readonly countStatuses?: boolean
}

function luaString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`
}

const RESULT_FORMAT = `'${WRK_MARKER}{"requests":%d,"duration_us":%d,"status_errors":%d,' ..
    '"socket_errors":%d,"p50_us":%d,"p99_us":%d%s}\\n'`

const DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(${RESULT_FORMAT},
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), counted_statuses()))
end
`

/** No per-response Lua unless asked: a `response` function makes wrk keep every answer's headers. */
const NO_STATUSES = `
counted_statuses = function() return "" end
`

/**
 * Each thread counts its answers per status; `done` (in the main Lua state) reads the threads'
 * tables through `thread:get`.
 */
const COUNT_STATUSES = `
statuses = {}
response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
local threads = {}
setup = function(thread) threads[#threads + 1] = thread end
counted_statuses = function()
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(total) do
    parts[#parts + 1] = string.format('"%d":%d', status, count)
  end
  return ',"statuses":{' .. table.concat(parts, ",") .. "}"
end
`

/**
 * Static headers are set once on `wrk.headers` (wrk then builds the request a single time);
 * rotating tokens need a `request` function, which costs wrk some Lua per request.
 */
export function wrkScript(spec: WrkRequestSpec): string {
  const lines = Object.entries(spec.headers).map(
    ([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`,
  )
  if (spec.tokensFile !== undefined) {
    lines.push(
      'local tokens = {}',
      `for line in io.lines(${luaString(spec.tokensFile)}) do tokens[#tokens + 1] = line end`,
      'if #tokens == 0 then error("empty tokens file") end',
      `local index = ${Math.max(0, Math.floor(spec.tokenOffset ?? 0))} % #tokens`,
      'request = function()',
      '  index = index + 1',
      '  if index > #tokens then index = 1 end',
      '  wrk.headers["Authorization"] = "Bearer " .. tokens[index]',
      '  return wrk.format()',
      'end',
    )
  }
  lines.push(spec.countStatuses === true ? COUNT_STATUSES : NO_STATUSES)
  return `${lines.join('\n')}\n${DONE}`
}

interface WrkJson {
  requests: number
  duration_us: number
  status_errors: number
  socket_errors: number
  p50_us: number
  p99_us: number
  statuses?: Record<string, number>
}

/**
 * The result line the script's `done` printed; throws when wrk printed none. wrk itself counts
 * only statuses ≥ 400 as errors; with an expected status (and counted statuses) the unexpected
 * answers are those with any other status.
 */
export function parseWrkOutput(stdout: string, expectStatus?: number): LoadResult {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(WRK_MARKER))
  if (line === undefined) throw new Error(`wrk printed no result:\n${stdout.slice(-1_000)}`)
  const json = JSON.parse(line.slice(WRK_MARKER.length)) as WrkJson
  const result = {
    requests: json.requests,
    durationS: json.duration_us / 1e6,
    unexpected: json.status_errors,
    errors: json.socket_errors,
    p50Us: json.p50_us,
    p99Us: json.p99_us,
  }
  if (json.statuses === undefined) return result
  return {
    ...result,
    unexpected:
      expectStatus === undefined ? result.unexpected : otherThan(json.statuses, expectStatus),
    statuses: json.statuses,
  }
}
