/**
 * The A2A interface under a prefix (`/a2a`, and for tests a custom `/protocol` and the root):
 * agent cards, message send/stream, tasks get/cancel, the deprecated dynamic dispatch.
 */
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
import { RUNTIME_VERSION } from './core.js'

interface Target {
  family: Family
  id: string
}

/** The prefixes the demo mounts the interface at. */
export const A2A_PREFIXES = ['/a2a', '/protocol', ''] as const

function agentCard(ctx: RequestContext, { family, id }: Target, prefix: string): void {
  const component = requireComponent(ctx, family, id)
  if (component === undefined) return
  const host = ctx.req.headers.host ?? 'localhost'
  sendJson(ctx.res, 200, {
    name: component.name,
    description: component.description,
    url: `http://${host}${prefix}/${family}/${id}/v1`,
    version: RUNTIME_VERSION,
    protocolVersion: '0.3.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [{ id, name: component.name, description: component.description, tags: [] }],
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
  const events = taskUpdates(run).map((update) => ({ data: rpcResult(body, update) }))
  await writeSseSequence(ctx.res, events, ctx.app.settings.sseIntervalMs, ctx.signal)
}

function getTask(ctx: RequestContext, target: Target): void {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  const params: JsonObject | undefined = rpcParams(body)
  const contextId = stringField(params, 'contextId')
  if (contextId === undefined) return sendDetail(ctx.res, 400, 'contextId is required')
  const taskId = stringField(params, 'id')
  const runs = [...ctx.app.store.runs.values()].filter(
    (run) =>
      run.family === target.family &&
      run.component_id === target.id &&
      run.session_id === contextId &&
      (taskId === undefined || run.run_id === taskId),
  )
  const run = runs.at(-1)
  if (run === undefined) return sendDetail(ctx.res, 404, 'Task not found')
  sendJson(ctx.res, 200, rpcResult(body, taskOf(run)))
}

function cancelTask(ctx: RequestContext): void {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  const params = rpcParams(body)
  sendJson(
    ctx.res,
    200,
    rpcResult(body, {
      kind: 'task',
      id: stringField(params, 'id') ?? null,
      contextId: stringField(params, 'contextId') ?? null,
      status: { state: 'canceled' },
      user_id: a2aUserId(ctx, body),
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
      .add('GET', `${base}/.well-known/agent-card.json`, (ctx) =>
        agentCard(ctx, target(ctx), prefix),
      )
      .add('POST', `${base}/v1/message:send`, (ctx) => sendMessage(ctx, target(ctx), false))
      .add('POST', `${base}/v1/message:stream`, (ctx) => sendMessage(ctx, target(ctx), true))
      .add('POST', `${base}/v1/tasks:get`, (ctx) => getTask(ctx, target(ctx)))
      .add('POST', `${base}/v1/tasks:cancel`, cancelTask)
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
