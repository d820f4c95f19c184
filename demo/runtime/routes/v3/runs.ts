/**
 * 3.0's run start: the 2.9 run plus a pinned component version (`version`), the
 * `Idempotency-Key` header, media storage for the run's files, and a queue job for a background run.
 */
import type { RequestContext } from '../../context.js'
import { formField, parseBool, requireWellFormedForm, type JsonObject } from '../../params.js'
import { sendDetail, sendJson } from '../../respond.js'
import { FAMILY_INFO, runView, type Family, type MediaRef, type RunRecord } from '../../store.js'
import { sendValidationErrors, validate } from '../../validation.js'
import { runEvents, streamEvents } from '../runs.js'

/** The form as FastAPI reads it: first values, an empty field the same as an absent one. */
function formFields(ctx: RequestContext): JsonObject {
  const fields: JsonObject = {}
  for (const [key, values] of Object.entries(ctx.body.form ?? {})) {
    if (values[0] !== undefined && values[0] !== '') fields[key] = values[0]
  }
  return fields
}

/**
 * Whether the path's component can run at `version`. An open AgentOS treats every caller as
 * privileged (V3-DRAFT-1), so a draft version runs as well as a published one (V3-DRAFT-2).
 */
function resolves(ctx: RequestContext, family: Family, id: string, version: number | undefined) {
  const row = ctx.app.catalog.find(id)
  const catalogued = row?.component_type === FAMILY_INFO[family].sessionType
  if (version !== undefined) return catalogued && ctx.app.catalog.config(id, version) !== undefined
  return (
    ctx.app.store.findComponent(family, id) !== undefined ||
    (catalogued && row.current_version !== null)
  )
}

function mediaOf(run: RunRecord): MediaRef[] {
  return run.files.map((file, index) => ({
    storage_key: `sessions/${run.session_id}/runs/${run.run_id}/${index}-${file.filename}`,
    mime_type: file.contentType,
    filename: file.filename,
    size: file.size,
  }))
}

function headerValue(ctx: RequestContext, name: string): string | null {
  const value = ctx.req.headers[name]
  return typeof value === 'string' ? value : null
}

export async function createRunV3(ctx: RequestContext, family: Family): Promise<void> {
  if (!requireWellFormedForm(ctx)) return
  const form = formFields(ctx)
  const { values, issues } = validate('body', form, {
    message: { kind: 'string', required: true },
    version: { kind: 'int' },
  })
  if (issues.length > 0) return sendValidationErrors(ctx, issues)
  const { idKey, label } = FAMILY_INFO[family]
  const componentId = ctx.params[idKey] ?? ''
  const version = values['version'] as number | undefined
  if (!resolves(ctx, family, componentId, version)) {
    return sendDetail(ctx.res, 404, `${label} not found`)
  }
  const run = ctx.app.store.createRun({
    family,
    component_id: componentId,
    session_id: formField(ctx, 'session_id') || undefined,
    user_id: formField(ctx, 'user_id') ?? null,
    message: values['message'] as string,
    files: ctx.body.files ?? [],
  })
  const idempotencyKey = headerValue(ctx, 'idempotency-key')
  run.v3 = { version: version ?? null, idempotency_key: idempotencyKey, media: mediaOf(run) }
  if (parseBool(formField(ctx, 'background'))) ctx.app.jobs.enqueue(run, form, idempotencyKey)
  if (parseBool(formField(ctx, 'stream'))) await streamEvents(ctx, runEvents(run))
  else sendJson(ctx.res, 200, runView(run))
}
