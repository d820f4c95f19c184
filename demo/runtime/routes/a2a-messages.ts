/** Reading A2A JSON-RPC requests and shaping A2A task results. */
import type { RequestContext } from '../context.js'
import { isJsonObject, stringField, type JsonObject } from '../params.js'
import { sendDetail } from '../respond.js'
import { FAMILY_INFO, type RunRecord } from '../store.js'

export function objectField(object: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = object?.[key]
  return isJsonObject(value) ? value : undefined
}

export function rpcParams(body: JsonObject): JsonObject | undefined {
  return objectField(body, 'params')
}

export function rpcMessage(body: JsonObject): JsonObject | undefined {
  return objectField(rpcParams(body), 'message')
}

/** AgentOS's A2A user id: the `X-User-ID` header if not empty, else the metadata's `userId`. */
export function a2aUserId(ctx: RequestContext, body: JsonObject): string | null {
  const header = ctx.req.headers['x-user-id']
  if (typeof header === 'string' && header !== '') return header
  return stringField(objectField(rpcMessage(body), 'metadata'), 'userId') ?? null
}

/** AgentOS 2.9.0's reserved principals (`is_reserved_principal`, middleware/jwt.py). */
function isReservedPrincipal(userId: string | null): boolean {
  return (
    userId !== null &&
    (userId.startsWith('sa:') || userId.startsWith('__oauth__:') || userId === '__scheduler__')
  )
}

/**
 * `resolve_run_user_id` (middleware/user_scope.py) for a caller with no server-assigned identity,
 * which every caller of this open runtime is: the client's id is used for attribution unless it
 * claims a reserved principal, then 403 (sent here; undefined returned).
 */
export function resolveRunUserId(
  ctx: RequestContext,
  clientUserId: string | null,
): string | null | undefined {
  if (!isReservedPrincipal(clientUserId)) return clientUserId
  sendDetail(ctx.res, 403, 'Client-supplied user_id may not claim a reserved principal')
  return undefined
}

export function messageText(message: JsonObject | undefined): string {
  const parts = Array.isArray(message?.['parts']) ? message['parts'] : []
  return parts.map((part) => (isJsonObject(part) ? (stringField(part, 'text') ?? '') : '')).join('')
}

export function rpcResult(body: JsonObject, result: unknown): JsonObject {
  return { jsonrpc: '2.0', id: body['id'] ?? null, result }
}

export function taskOf(run: RunRecord, state = 'completed'): JsonObject {
  return {
    kind: 'task',
    id: run.run_id,
    contextId: run.session_id,
    status: { state },
    artifacts:
      state === 'completed'
        ? [{ artifactId: `${run.run_id}-content`, parts: [{ kind: 'text', text: run.content }] }]
        : [],
    user_id: run.user_id,
    metadata: {
      user_id: run.user_id,
      [FAMILY_INFO[run.family].idKey]: run.component_id,
    },
  }
}

/** The streamed form of a run: submitted task, working, the artifact, completed. */
export function taskUpdates(run: RunRecord): JsonObject[] {
  const common = { taskId: run.run_id, contextId: run.session_id, user_id: run.user_id }
  return [
    taskOf(run, 'submitted'),
    { kind: 'status-update', ...common, status: { state: 'working' }, final: false },
    {
      kind: 'artifact-update',
      ...common,
      artifact: {
        artifactId: `${run.run_id}-content`,
        parts: [{ kind: 'text', text: run.content }],
      },
    },
    { kind: 'status-update', ...common, status: { state: 'completed' }, final: true },
  ]
}
