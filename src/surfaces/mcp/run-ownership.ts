import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import { sessionType } from '../common/component-sessions.js'
import { isJsonObject } from '../common/json.js'
import { lookupFailed, type UpstreamLookup } from '../common/upstream-lookup.js'

/** AgentOS's texts (docs/agentos-compatibility.md MCP-4). */
export const SESSION_REQUIRED = 'session_id is required to act on this run'
export const RUN_NOT_FOUND = 'Run not found'

/**
 * The ownership gate of `continue_run` and `cancel_run` for a scoped caller (AgentOS's
 * `verify_run_ownership`): the session must be the caller's and the path component's, and hold
 * the run, of that component. Read from the upstream's session API with the caller's user id as
 * the filter. Returns the refusal text, or undefined when the caller owns the run.
 */
export async function runOwnershipRefusal(
  lookup: UpstreamLookup,
  target: { readonly family: ResourceFamily; readonly id: string | undefined },
  sessionId: unknown,
  runId: unknown,
  scopedUserId: string,
): Promise<string | undefined> {
  if (typeof sessionId !== 'string' || sessionId === '') return SESSION_REQUIRED
  if (typeof runId !== 'string' || target.id === undefined) return RUN_NOT_FOUND
  const [type, idKey] = sessionType(target.family)
  const query = new URLSearchParams({ type, user_id: scopedUserId }).toString()
  const base = `/sessions/${encodeURIComponent(sessionId)}`
  const session = await lookup(`${base}?${query}`)
  if (session.status === 404) return RUN_NOT_FOUND
  if (session.status !== 200 || !isJsonObject(session.value))
    throw lookupFailed('surfaces.mcp_run_lookup')
  const owner = session.value
  if (owner['user_id'] !== scopedUserId || owner[idKey] !== target.id) return RUN_NOT_FOUND
  const runs = await lookup(`${base}/runs?${query}`)
  if (runs.status === 404) return RUN_NOT_FOUND
  const list = runList(runs.value)
  if (runs.status !== 200 || list === undefined) throw lookupFailed('surfaces.mcp_run_lookup')
  const owned = list.some(
    (run) => isJsonObject(run) && run['run_id'] === runId && run[idKey] === target.id,
  )
  return owned ? undefined : RUN_NOT_FOUND
}

/** A list of runs, or a page of them (`{data: […]}`). */
function runList(value: unknown): readonly unknown[] | undefined {
  const list: unknown = isJsonObject(value) ? value['data'] : value
  return Array.isArray(list) ? (list as unknown[]) : undefined
}
