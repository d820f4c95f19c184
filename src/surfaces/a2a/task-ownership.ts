import { GatewayError } from '../../errors.js'
import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import { isJsonObject } from '../common/json.js'
import { runInSession } from '../common/run-in-session.js'
import type { UpstreamLookup } from '../common/upstream-lookup.js'

/** The task operations AgentOS checks a scoped caller's ownership of. */
export type TaskOperation = 'get' | 'cancel'

/**
 * A self-scoped caller's `tasks:get` and `tasks:cancel` (AgentOS's `verify_run_in_session`,
 * A2A-5, A2A-6): the task (`params.id`) must be a run of the path's component in a session
 * (`params.contextId`) the caller owns; otherwise 404 `Run not found`. A cancel must name the
 * session (the open upstream cancels by run id alone); a get without one, or either without a
 * task id, is the upstream's 400 to give. Ownership is read from the upstream's session API with
 * each of the caller's ids as the filter (a service account's own and its interface alias).
 */
export async function verifyTaskOwnership(
  lookup: UpstreamLookup,
  target: { readonly family: ResourceFamily; readonly id: string },
  params: unknown,
  owners: readonly string[],
  operation: TaskOperation,
): Promise<void> {
  const taskId = isJsonObject(params) ? params['id'] : undefined
  const contextId = isJsonObject(params) ? params['contextId'] : undefined
  if (taskId === undefined || taskId === null || taskId === '') return
  if (contextId === undefined || contextId === null || contextId === '') {
    if (operation === 'get') return
    throw new GatewayError('BAD_REQUEST', 'contextId is required to cancel a task', {
      reason: 'surfaces.a2a_task_context_required',
    })
  }
  if (typeof taskId === 'string' && typeof contextId === 'string') {
    for (const owner of owners) {
      if (await runInSession(lookup, target, contextId, taskId, owner, 'surfaces.a2a_task_lookup'))
        return
    }
  }
  throw new GatewayError('NOT_FOUND', 'Run not found', { reason: 'surfaces.a2a_task_foreign' })
}
