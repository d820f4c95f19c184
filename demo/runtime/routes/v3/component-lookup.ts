/** Finding the path's component, its stages and moving its current pointer, for both routers. */
import type { RequestContext } from '../../context.js'
import { sendDetail } from '../../respond.js'
import type { JsonObject } from '../../params.js'
import type { Rules } from '../../validation.js'
import { type CatalogComponent, type ConfigFields, STAGES } from '../../v3/catalog.js'

/** The version fields of `ComponentCreate` and `ConfigCreate` (`config` differs between them). */
export const VERSION_RULES: Rules = {
  label: { kind: 'string', nullable: true, default: null },
  stage: { kind: 'string', default: 'draft' },
  notes: { kind: 'string', nullable: true, default: null },
}

export function requireCatalogued(ctx: RequestContext, includeDeleted = false) {
  const id = ctx.params['component_id'] ?? ''
  const component = ctx.app.catalog.find(id, includeDeleted)
  if (component === undefined) sendDetail(ctx.res, 404, `Component ${id} not found`)
  return component
}

/** Moves the current pointer to a published version, or answers why it cannot. */
export function moveCurrent(ctx: RequestContext, component: CatalogComponent, version: number) {
  const id = component.component_id
  const outcome = ctx.app.catalog.setCurrent(id, version)
  // guessed text: the stored router answers 400 with the catalogue's ValueError, not read
  if (outcome === 'draft') sendDetail(ctx.res, 400, `Config ${id} v${version} is not published`)
  return outcome
}

/** Only `draft` and `published` are stages; anything else is the catalogue's ValueError (400). */
export function validStage(ctx: RequestContext, stage: string | undefined): boolean {
  if (stage === undefined || (STAGES as readonly string[]).includes(stage)) return true
  // guessed text: the catalogue's ValueError was not read
  sendDetail(ctx.res, 400, `Invalid stage: ${stage}`)
  return false
}

/** A new version from a validated create body; undefined (400 sent) for an unknown stage. */
export function versionFields(ctx: RequestContext, body: JsonObject): ConfigFields | undefined {
  const stage = body['stage'] as string
  if (!validStage(ctx, stage)) return undefined
  return {
    config: (body['config'] as JsonObject | null | undefined) ?? {},
    label: body['label'] as string | null,
    stage,
    notes: body['notes'] as string | null,
  }
}
