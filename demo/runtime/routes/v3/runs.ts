/**
 * 3.0's run start: the 2.9 run plus a pinned component version (`version`), the
 * `Idempotency-Key` header, media storage for the run's files, and a queue job for a background run.
 */
import type { RequestContext } from '../../context.js'
import {
  formField,
  isJsonObject,
  parseBool,
  requireWellFormedForm,
  type JsonObject,
} from '../../params.js'
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

/** The run-metadata key 3.0 stamps with the version a run was pinned to. */
const VERSION_STAMP = 'agno_component_version'

/**
 * The run's metadata as 3.0 records it: the form's JSON object, stamped with the pinned version,
 * which the run's continue resolves again. A stamp the client sent is kept when no version is
 * pinned (the executor of schedules takes it out; a run start is not shown to).
 */
function stampedMetadata(raw: string | undefined, version: number | undefined): JsonObject | null {
  let metadata: JsonObject | null = null
  if (raw !== undefined) {
    try {
      const parsed: unknown = JSON.parse(raw)
      if (isJsonObject(parsed)) metadata = parsed
    } catch {
      // AgentOS answers 400 to metadata that is not JSON; the demo records none.
    }
  }
  return version === undefined ? metadata : { ...metadata, [VERSION_STAMP]: version }
}

/**
 * 3.0's continue resolves the component again at the version stamped on the run (V3-DRAFT-3). An
 * open AgentOS previews every version, so only a stamp that no config has any more refuses;
 * true when the continue may go on (the answer is sent otherwise).
 */
export function stampedVersionResolves(
  ctx: RequestContext,
  family: Family,
  run: RunRecord,
): boolean {
  const stamp = run.v3?.metadata?.[VERSION_STAMP]
  if (typeof stamp !== 'number' || resolves(ctx, family, run.component_id, stamp)) return true
  const { label } = FAMILY_INFO[family]
  sendDetail(
    ctx.res,
    404,
    `${label} version ${stamp} recorded on run ${run.run_id} is no longer available`,
  )
  return false
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
  run.v3 = {
    version: version ?? null,
    idempotency_key: idempotencyKey,
    media: mediaOf(run),
    metadata: stampedMetadata(formField(ctx, 'metadata'), version),
  }
  if (parseBool(formField(ctx, 'background'))) ctx.app.jobs.enqueue(run, form, idempotencyKey)
  if (parseBool(formField(ctx, 'stream'))) await streamEvents(ctx, runEvents(run))
  else sendJson(ctx.res, 200, runView(run))
}
