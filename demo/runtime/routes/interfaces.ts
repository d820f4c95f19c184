/**
 * AG-UI interfaces (`/agui` and `/chat/public/agui` bound to agent a1, `/team/agui` bound to
 * team t1) and a Slack webhook stand-in.
 */
import { randomUUID } from 'node:crypto'
import type { RequestContext } from '../context.js'
import { isJsonObject, jsonObject, requireJsonObject, stringField } from '../params.js'
import { sendJson, writeSseSequence } from '../respond.js'
import type { Router } from '../router.js'
import type { Family } from '../store.js'
import { objectField, resolveRunUserId } from './a2a-messages.js'
import { genericEcho } from './generic.js'

export const AGUI_AGENT_ID = 'a1'
export const AGUI_TEAM_ID = 't1'

/** Where the demo mounts AG-UI, and what each endpoint runs. */
export const AGUI_ENDPOINTS: readonly (readonly [string, Family, string])[] = [
  ['/agui', 'agents', AGUI_AGENT_ID],
  ['/chat/public/agui', 'agents', AGUI_AGENT_ID],
  ['/team/agui', 'teams', AGUI_TEAM_ID],
]

function lastUserMessage(messages: unknown): string {
  const list = Array.isArray(messages) ? messages.filter(isJsonObject) : []
  const user = list.filter((message) => message['role'] === 'user').at(-1)
  return stringField(user, 'content') ?? ''
}

async function aguiRun(ctx: RequestContext, family: Family, componentId: string): Promise<void> {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  const forwarded = objectField(body, 'forwarded_props') ?? objectField(body, 'forwardedProps')
  // Resolved before streaming starts, so that a refusal is a 403 (agui/router.py).
  const userId = resolveRunUserId(ctx, stringField(forwarded, 'user_id') ?? null)
  if (userId === undefined) return
  const threadId = stringField(body, 'threadId') || undefined
  const run = ctx.app.store.createRun({
    family,
    component_id: componentId,
    session_id: threadId,
    user_id: userId,
    message: lastUserMessage(body['messages']),
    files: [],
  })
  // AgentOS's events (ag_ui's EventEncoder: camelCase, no empty fields) carry no user id.
  const ids = { threadId: run.session_id, runId: stringField(body, 'runId') ?? run.run_id }
  const messageId = randomUUID()
  const events = [
    { type: 'RUN_STARTED', ...ids },
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: run.content },
    { type: 'TEXT_MESSAGE_END', messageId },
    { type: 'RUN_FINISHED', ...ids },
  ]
  const sse = events.map((data) => ({ data }))
  await writeSseSequence(ctx.res, sse, ctx.app.settings.sseIntervalMs, ctx.signal)
}

function slackEvent(ctx: RequestContext): void {
  const body = jsonObject(ctx)
  if (stringField(body, 'type') === 'url_verification') {
    return sendJson(ctx.res, 200, { challenge: stringField(body, 'challenge') ?? null })
  }
  genericEcho(ctx)
}

export function registerInterfaceRoutes(router: Router): void {
  for (const [path, family, id] of AGUI_ENDPOINTS) {
    router.add('POST', path, (ctx) => aguiRun(ctx, family, id))
  }
  router
    .add('GET', '/status', (ctx) => sendJson(ctx.res, 200, { status: 'available' }))
    .add('POST', '/slack/events', slackEvent)
}
