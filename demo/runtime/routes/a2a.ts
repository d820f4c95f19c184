/**
 * The A2A interface under a prefix (`/a2a`, and for tests a custom `/protocol` and the root):
 * agent cards, message send/stream, tasks get/cancel, the deprecated dynamic dispatch.
 */
import { randomUUID } from 'node:crypto'
import type { RequestContext } from '../context.js'
import { requireJsonObject, stringField, type JsonObject } from '../params.js'
import { sendDetail, sendJson, writeSseSequence } from '../respond.js'
import type { Router } from '../router.js'
import { FAMILIES, FAMILY_INFO, type Family } from '../store.js'
import {
  a2aUserId,
  messageText,
  resolveRunUserId,
  rpcMessage,
  rpcParams,
  rpcResult,
  taskOf,
  taskUpdates,
} from './a2a-messages.js'
import { requireComponent } from './catalog.js'

interface Target {
  family: Family
  id: string
}

/** The prefixes the demo mounts the interface at. */
export const A2A_PREFIXES = ['/a2a', '/protocol', ''] as const

/**
 * AgentOS 2.9's agent card (a2a-sdk 0.3 `AgentCard`): its `url` is the streaming route under
 * `/a2a`, whatever the prefix the interface is mounted at.
 */
function agentCard(ctx: RequestContext, { family, id }: Target): void {
  const component = requireComponent(ctx, family, id)
  if (component === undefined) return
  const host = ctx.req.headers.host ?? 'localhost'
  sendJson(ctx.res, 200, {
    capabilities: { pushNotifications: false, stateTransitionHistory: false, streaming: true },
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    description: component.description,
    name: component.name,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    skills: [
      {
        description: component.description,
        examples: ['search', 'ok'],
        id,
        name: component.name,
        outputModes: ['application/json'],
        tags: ['agno'],
      },
    ],
    supportsAuthenticatedExtendedCard: false,
    url: `http://${host}/a2a/${family}/${id}/v1/message:stream`,
    version: '1.0.0',
  })
}

async function sendMessage(ctx: RequestContext, target: Target, stream: boolean) {
  const body = requireJsonObject(ctx)
  if (body === undefined || requireComponent(ctx, target.family, target.id) === undefined) return
  const userId = resolveRunUserId(ctx, a2aUserId(ctx, body))
  if (userId === undefined) return
  const message = rpcMessage(body)
  const run = ctx.app.store.createRun({
    family: target.family,
    component_id: target.id,
    session_id: stringField(message, 'contextId') || undefined,
    user_id: userId,
    message: messageText(message),
    files: [],
  })
  if (!stream) return sendJson(ctx.res, 200, rpcResult(body, taskOf(run)))
  const events = taskUpdates(run).map(({ event, data }) => ({ event, data: rpcResult(body, data) }))
  await writeSseSequence(ctx.res, events, ctx.app.settings.sseIntervalMs, ctx.signal)
}

const TASK_ID_REQUIRED = 'Task ID (params.id) is required'

/** AgentOS 2.9's `tasks:get`: the run named by `params.id` in the session `params.contextId`. */
function getTask(ctx: RequestContext, target: Target): void {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  const params: JsonObject | undefined = rpcParams(body)
  const taskId = stringField(params, 'id')
  if (!taskId) return sendDetail(ctx.res, 400, TASK_ID_REQUIRED)
  if (requireComponent(ctx, target.family, target.id) === undefined) return
  const contextId = stringField(params, 'contextId')
  if (!contextId) return sendDetail(ctx.res, 400, 'contextId is required to poll a task')
  const run = ctx.app.store.runs.get(taskId)
  const found =
    run !== undefined &&
    run.family === target.family &&
    run.component_id === target.id &&
    run.session_id === contextId
  if (!found) return sendDetail(ctx.res, 404, 'Task not found')
  sendJson(ctx.res, 200, rpcResult(body, taskOf(run)))
}

/**
 * AgentOS 2.9's `tasks:cancel` for a caller without a scoped identity (every caller of this open
 * runtime): the run is cancelled by its id alone, and the answer is a canceled task whatever the
 * run was.
 */
function cancelTask(ctx: RequestContext, target: Target): void {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  const params = rpcParams(body)
  const taskId = stringField(params, 'id')
  if (!taskId) return sendDetail(ctx.res, 400, TASK_ID_REQUIRED)
  if (requireComponent(ctx, target.family, target.id) === undefined) return
  const run = ctx.app.store.runs.get(taskId)
  if (run !== undefined) run.status = 'CANCELLED'
  sendJson(
    ctx.res,
    200,
    rpcResult(body, {
      contextId: stringField(params, 'contextId') ?? randomUUID(),
      id: taskId,
      kind: 'task',
      status: { state: 'canceled' },
    }),
  )
}

/** The deprecated dynamic dispatch: the target is named by the `X-Agent-ID` header. */
function headerTarget(ctx: RequestContext): Target | undefined {
  const id = ctx.req.headers['x-agent-id']
  if (typeof id !== 'string' || id === '') {
    sendDetail(ctx.res, 400, 'X-Agent-ID header is required')
    return undefined
  }
  const family = FAMILIES.find((candidate) => ctx.app.store.findComponent(candidate, id))
  if (family === undefined) sendDetail(ctx.res, 404, 'Agent not found')
  return family === undefined ? undefined : { family, id }
}

export function registerA2aRoutes(router: Router, prefix: string): void {
  for (const family of FAMILIES) {
    const base = `${prefix}/${family}/{${FAMILY_INFO[family].idKey}}`
    const target = (ctx: RequestContext): Target => ({
      family,
      id: ctx.params[FAMILY_INFO[family].idKey] ?? '',
    })
    router
      .add('GET', `${base}/.well-known/agent-card.json`, (ctx) => agentCard(ctx, target(ctx)))
      .add('POST', `${base}/v1/message:send`, (ctx) => sendMessage(ctx, target(ctx), false))
      .add('POST', `${base}/v1/message:stream`, (ctx) => sendMessage(ctx, target(ctx), true))
    // Workflows have no task routes.
    if (family === 'workflows') continue
    router
      .add('POST', `${base}/v1/tasks:get`, (ctx) => getTask(ctx, target(ctx)))
      .add('POST', `${base}/v1/tasks:cancel`, (ctx) => cancelTask(ctx, target(ctx)))
  }
}

/** The deprecated dynamic dispatch, which 3.0 removed. */
export function registerA2aDispatchRoutes(router: Router, prefix: string): void {
  for (const [path, stream] of [
    ['message/send', false],
    ['message/stream', true],
  ] as const) {
    router.add('POST', `${prefix}/${path}`, async (ctx) => {
      const target = headerTarget(ctx)
      if (target !== undefined) await sendMessage(ctx, target, stream)
    })
  }
}
