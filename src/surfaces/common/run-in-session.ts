import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import { sessionType } from './component-sessions.js'
import { isJsonObject } from './json.js'
import { lookupFailed, type LookupReason, type UpstreamLookup } from './upstream-lookup.js'

/**
 * AgentOS's ownership test of a run for a scoped caller (`verify_run_in_session`,
 * `verify_run_ownership`): the session is the user's and the component's, and holds the run, of
 * that component. Read from the upstream's session API with the user id as the filter; an answer
 * that is neither the session nor 404 fails closed with `reason`.
 */
export async function runInSession(
  lookup: UpstreamLookup,
  target: { readonly family: ResourceFamily; readonly id: string },
  sessionId: string,
  runId: string,
  userId: string,
  reason: LookupReason,
): Promise<boolean> {
  const [type, idKey] = sessionType(target.family)
  const query = new URLSearchParams({ type, user_id: userId }).toString()
  const base = `/sessions/${encodeURIComponent(sessionId)}`
  const session = await lookup(`${base}?${query}`)
  if (session.status === 404) return false
  if (session.status !== 200 || !isJsonObject(session.value)) throw lookupFailed(reason)
  const owner = session.value
  if (owner['user_id'] !== userId || owner[idKey] !== target.id) return false
  const runs = await lookup(`${base}/runs?${query}`)
  if (runs.status === 404) return false
  const list = runList(runs.value)
  if (runs.status !== 200 || list === undefined) throw lookupFailed(reason)
  return list.some(
    (run) => isJsonObject(run) && run['run_id'] === runId && run[idKey] === target.id,
  )
}

/** A list of runs, or a page of them (`{data: […]}`). */
function runList(value: unknown): readonly unknown[] | undefined {
  const list: unknown = isJsonObject(value) ? value['data'] : value
  return Array.isArray(list) ? (list as unknown[]) : undefined
}
