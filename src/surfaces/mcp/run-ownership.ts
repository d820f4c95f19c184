import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import { runInSession } from '../common/run-in-session.js'
import type { UpstreamLookup } from '../common/upstream-lookup.js'

/** AgentOS's texts (docs/agentos-compatibility.md MCP-4). */
export const SESSION_REQUIRED = 'session_id is required to act on this run'
export const RUN_NOT_FOUND = 'Run not found'

/**
 * The ownership gate of `continue_run` and `cancel_run` for a scoped caller (AgentOS's
 * `verify_run_ownership`): the session must be the caller's and the path component's, and hold
 * the run, of that component. Returns the refusal text, or undefined when the caller owns the run.
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
  const owned = await runInSession(
    lookup,
    { family: target.family, id: target.id },
    sessionId,
    runId,
    scopedUserId,
    'surfaces.mcp_run_lookup',
  )
  return owned ? undefined : RUN_NOT_FOUND
}
