import { GatewayError } from '../../errors.js'
import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import { sessionType } from '../common/component-sessions.js'
import { isJsonObject } from '../common/json.js'
import { lookupFailed, type UpstreamLookup } from '../common/upstream-lookup.js'

function taskNotFound(): GatewayError {
  return new GatewayError('NOT_FOUND', 'Task not found', { reason: 'surfaces.a2a_task_foreign' })
}

/**
 * A self-scoped caller's `tasks:get` must name a session (`contextId`) it owns, of the path's
 * component (A2A-5); otherwise 404. Ownership is read from the upstream's session API
 * with each of the caller's ids as the filter (a service account's own and its interface alias),
 * so another user's session is not found.
 */
export async function verifyTaskOwnership(
  lookup: UpstreamLookup,
  target: { readonly family: ResourceFamily; readonly id: string },
  contextId: unknown,
  owners: readonly string[],
): Promise<void> {
  // A missing contextId is the upstream's 400 to give.
  if (contextId === undefined || contextId === null) return
  if (typeof contextId !== 'string' || contextId === '') throw taskNotFound()
  const [type, idKey] = sessionType(target.family)
  for (const owner of owners) {
    const query = new URLSearchParams({ type, user_id: owner })
    const { status, value } = await lookup(
      `/sessions/${encodeURIComponent(contextId)}?${query.toString()}`,
    )
    if (status === 404) continue
    if (status !== 200 || !isJsonObject(value)) throw lookupFailed('surfaces.a2a_task_lookup')
    if (value['user_id'] === owner && value[idKey] === target.id) return
  }
  throw taskNotFound()
}
