/** Reading A2A JSON-RPC requests and shaping A2A task results. */
import { randomUUID } from 'node:crypto'
import type { RequestContext } from '../context.js'
import { isJsonObject, stringField, type JsonObject } from '../params.js'
import { sendDetail } from '../respond.js'
import type { RunRecord } from '../store.js'

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

/** AgentOS's agent message of a finished run (`map_run_output_to_a2a_task`, `stream_a2a_response`). */
function agentMessage(run: RunRecord, messageId: string, metadata?: JsonObject): JsonObject {
  return {
    contextId: run.session_id,
    kind: 'message',
    messageId,
    ...(metadata === undefined ? {} : { metadata }),
    parts: [{ kind: 'text', text: run.content }],
    role: 'agent',
    taskId: run.run_id,
  }
}

/**
 * A finished run as AgentOS 2.9 answers `message:send` and `tasks:get` (pydantic, camelCase,
 * `exclude_none`): the answer is the agent message in `history`, which carries the run's user as
 * `metadata.userId` when it has one.
 */
export function taskOf(run: RunRecord): JsonObject {
  const metadata = run.user_id === null ? undefined : { userId: run.user_id }
  return {
    contextId: run.session_id,
    history: [agentMessage(run, randomUUID(), metadata)],
    id: run.run_id,
    kind: 'task',
    status: { state: run.status === 'CANCELLED' ? 'canceled' : 'completed' },
  }
}

/**
 * The streamed form of a run as AgentOS 2.9 writes it (`stream_a2a_response`): working, the
 * content as a message, completed (final), then the whole task; each SSE event is named.
 */
export function taskUpdates(run: RunRecord): { event: string; data: JsonObject }[] {
  const messageId = randomUUID()
  const ids = { contextId: run.session_id }
  const status = (state: string, final: boolean) => ({
    ...ids,
    final,
    kind: 'status-update',
    status: { state },
    taskId: run.run_id,
  })
  return [
    { event: 'TaskStatusUpdateEvent', data: status('working', false) },
    {
      event: 'Message',
      data: agentMessage(run, messageId, { agno_content_category: 'content' }),
    },
    { event: 'TaskStatusUpdateEvent', data: status('completed', true) },
    {
      event: 'Task',
      data: {
        ...ids,
        history: [agentMessage(run, messageId)],
        id: run.run_id,
        kind: 'task',
        status: { state: 'completed' },
      },
    },
  ]
}
