/** Creating runs of agents, teams and workflows, as JSON or as a Server-Sent-Events stream. */
import type { RequestContext } from '../context.js'
import {
  formField,
  parseBool,
  requireFormField,
  requireWellFormedForm,
  type JsonObject,
} from '../params.js'
import { sendJson, writeSseSequence, type SseEvent } from '../respond.js'
import type { Router } from '../router.js'
import { FAMILIES, FAMILY_INFO, runView, type Family, type RunRecord } from '../store.js'
import { requireComponent } from './catalog.js'

function inThirds(text: string): string[] {
  const size = Math.ceil(text.length / 3)
  return [0, 1, 2].map((index) => text.slice(index * size, (index + 1) * size))
}

export function runEvents(run: RunRecord): SseEvent[] {
  const base = {
    run_id: run.run_id,
    [FAMILY_INFO[run.family].idKey]: run.component_id,
    session_id: run.session_id,
    user_id: run.user_id,
  }
  const event = (name: string, data: JsonObject): SseEvent => ({
    event: name,
    data: { event: name, ...base, ...data },
  })
  return [
    event('RunStarted', { created_at: run.created_at }),
    ...inThirds(run.content).map((content, index) => event('RunContent', { index, content })),
    event('RunCompleted', { content: run.content, status: run.status }),
  ]
}

export function streamEvents(ctx: RequestContext, events: SseEvent[]): Promise<void> {
  return writeSseSequence(ctx.res, events, ctx.app.settings.sseIntervalMs, ctx.signal)
}

async function createRun(ctx: RequestContext, family: Family): Promise<void> {
  if (!requireWellFormedForm(ctx)) return
  const message = requireFormField(ctx, 'message')
  if (message === undefined) return
  const componentId = ctx.params[FAMILY_INFO[family].idKey] ?? ''
  if (requireComponent(ctx, family, componentId) === undefined) return
  const run = ctx.app.store.createRun({
    family,
    component_id: componentId,
    // like AgentOS, an empty session_id means "start a new session"
    session_id: formField(ctx, 'session_id') || undefined,
    user_id: formField(ctx, 'user_id') ?? null,
    message,
    files: ctx.body.files ?? [],
  })
  if (parseBool(formField(ctx, 'stream'))) await streamEvents(ctx, runEvents(run))
  else sendJson(ctx.res, 200, runView(run))
}

export type RunStarter = (ctx: RequestContext, family: Family) => Promise<void>

export function registerRunRoutes(router: Router, start: RunStarter = createRun): void {
  for (const family of FAMILIES) {
    router.add('POST', `/${family}/{${FAMILY_INFO[family].idKey}}/runs`, (ctx) =>
      start(ctx, family),
    )
  }
}
