import type { Grants } from '../../policy/grants.js'
import type { ResourceContext } from '../../policy/catalogue/route-facts.js'
import { isJsonObject } from '../common/json.js'

export const ONLY_ADMINS_SCHEDULE =
  'Only admins can schedule an endpoint that is not a run endpoint'

/** AgentOS's `RUN_ENDPOINT_RE`; `$` without the `m` flag is Python's `\Z` (no final newline). */
const RUN_ENDPOINT = /^\/(agents|teams|workflows)\/([^/]+)\/runs\/?$/

/** What a schedule calls: the endpoint and method its body (or its stored row) names. */
export interface ScheduleTarget {
  readonly endpoint: string
  readonly method: string
}

/** The run a target starts (`POST` and a run endpoint), or undefined for any other target. */
export function runOf(target: ScheduleTarget): ResourceContext | undefined {
  if (target.method.toUpperCase() !== 'POST') return undefined
  const match = RUN_ENDPOINT.exec(target.endpoint)
  if (match === null) return undefined
  return { family: match[1] ?? '', id: match[2] }
}

/**
 * AgentOS 3.0's `_require_endpoint_permission` (V3-SCHED-1), for a caller under authorization:
 * a target that is not a run needs the admin scope; a run needs `<family>:run` for its id.
 * Returns the 403 text, or undefined when the caller may schedule the target.
 */
export function targetRefusal(
  grants: Grants,
  scopes: readonly string[],
  target: ScheduleTarget,
): string | undefined {
  const run = runOf(target)
  if (run === undefined) {
    return grants.satisfies(scopes, grants.adminScope, undefined) ? undefined : ONLY_ADMINS_SCHEDULE
  }
  const required = `${run.family}:run`
  return grants.satisfies(scopes, required, run)
    ? undefined
    : `Insufficient permissions. Required scope(s): ${required}`
}

/** A method the upstream would refuse (not a string) counts as no run: only an admin passes. */
function methodOf(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/**
 * The target a create body names (`method` defaults to `POST`): undefined when it names no
 * endpoint the upstream would accept (it answers its own 422).
 */
export function targetOfCreate(body: unknown): ScheduleTarget | undefined {
  if (!isJsonObject(body)) return undefined
  const endpoint = body['endpoint']
  if (typeof endpoint !== 'string') return undefined
  return { endpoint, method: 'method' in body ? methodOf(body['method']) : 'POST' }
}

/**
 * The target after an update (`ScheduleUpdate`): undefined when the update names neither field
 * (AgentOS checks nothing then); otherwise the fields it names over the stored ones, which
 * `stored` is asked for only when needed. An endpoint that is not a string leaves the stored one
 * (the upstream refuses it or keeps the stored one; either way that one is checked).
 */
export async function targetOfUpdate(
  body: unknown,
  stored: () => Promise<ScheduleTarget | undefined>,
): Promise<ScheduleTarget | undefined> {
  if (!isJsonObject(body) || !('endpoint' in body || 'method' in body)) return undefined
  const endpoint = typeof body['endpoint'] === 'string' ? body['endpoint'] : undefined
  const method = 'method' in body ? methodOf(body['method']) : undefined
  if (endpoint !== undefined && method !== undefined) return { endpoint, method }
  const current = await stored()
  if (current === undefined) return undefined
  return { endpoint: endpoint ?? current.endpoint, method: method ?? current.method }
}
