/**
 * A component's config versions. Every caller of an open AgentOS is privileged (V3-DRAFT-1), so
 * drafts are listed and read like published versions. A new version is a draft unless it says
 * otherwise; `PATCH` with `"stage": "published"` publishes it; only a published version can be
 * made current (`set-current`), as the stored router's catalogue enforces.
 */
import type { RequestContext } from '../../context.js'
import { queryParam } from '../../params.js'
import { sendDetail, sendEmpty, sendJson } from '../../respond.js'
import type { Router } from '../../router.js'
import { nowSeconds } from '../../store.js'
import { intPathParam, type Rules, validJsonBody } from '../../validation.js'
import { type ComponentConfig, withoutNulls } from '../../v3/catalog.js'
import {
  moveCurrent,
  requireCatalogued,
  validStage,
  VERSION_RULES,
  versionFields,
} from './component-lookup.js'

/** `ConfigCreate` */
const CREATE_RULES: Rules = { config: { kind: 'object', required: true }, ...VERSION_RULES }

/** `ConfigUpdate` */
const UPDATE_RULES: Rules = {
  config: { kind: 'object', nullable: true },
  label: { kind: 'string', nullable: true },
  stage: { kind: 'string', nullable: true },
  notes: { kind: 'string', nullable: true },
}

/** The path's component and version, or the 422/404 answered. */
function requireVersion(ctx: RequestContext) {
  const version = intPathParam(ctx, 'version')
  const component = version === undefined ? undefined : requireCatalogued(ctx)
  if (version === undefined || component === undefined) return undefined
  const config = ctx.app.catalog.config(component.component_id, version)
  if (config === undefined) {
    sendDetail(ctx.res, 404, `Config ${component.component_id} v${version} not found`)
  }
  return config === undefined ? undefined : { component, config }
}

function list(ctx: RequestContext): void {
  const component = requireCatalogued(ctx)
  if (component === undefined) return
  const withConfig = queryParam(ctx, 'include_config') !== 'false'
  const configs = ctx.app.catalog.configs(component.component_id).map((row) => {
    const { config: _config, ...fields } = row
    return withoutNulls(withConfig ? row : fields)
  })
  sendJson(ctx.res, 200, configs)
}

function create(ctx: RequestContext): void {
  const body = validJsonBody(ctx, CREATE_RULES)
  const component = body === undefined ? undefined : requireCatalogued(ctx)
  const version =
    body === undefined || component === undefined ? undefined : versionFields(ctx, body)
  if (component === undefined || version === undefined) return
  sendJson(ctx.res, 201, withoutNulls(ctx.app.catalog.addConfig(component.component_id, version)))
}

function update(ctx: RequestContext): void {
  const body = validJsonBody(ctx, UPDATE_RULES)
  const found = body === undefined ? undefined : requireVersion(ctx)
  if (body === undefined || found === undefined) return
  if (!validStage(ctx, (body['stage'] as string | null | undefined) ?? undefined)) return
  // guessed text: "Cannot update published configs" is the route's summary; its error was not read
  if (found.config.stage === 'published') {
    return sendDetail(ctx.res, 400, 'Cannot update a published config')
  }
  const changes: Partial<ComponentConfig> = {}
  for (const field of ['config', 'label', 'stage', 'notes'] as const) {
    if (body[field] !== undefined && body[field] !== null) {
      Object.assign(changes, { [field]: body[field] })
    }
  }
  sendJson(
    ctx.res,
    200,
    withoutNulls(Object.assign(found.config, changes, { updated_at: nowSeconds() })),
  )
}

function remove(ctx: RequestContext): void {
  const found = requireVersion(ctx)
  if (found === undefined) return
  const { component, config } = found
  if (config.stage === 'published' || component.current_version === config.version) {
    // guessed text, after the route's summary "Cannot delete published or current configs"
    return sendDetail(ctx.res, 400, 'Cannot delete a published or current config')
  }
  ctx.app.catalog.deleteConfig(component.component_id, config.version)
  sendEmpty(ctx.res, 204)
}

function setCurrent(ctx: RequestContext): void {
  const version = intPathParam(ctx, 'version')
  const component = version === undefined ? undefined : requireCatalogued(ctx)
  if (version === undefined || component === undefined) return
  const outcome = moveCurrent(ctx, component, version)
  if (outcome === 'missing') {
    const id = component.component_id
    sendDetail(ctx.res, 404, `Component ${id} or config version ${version} not found`)
  }
  if (outcome === 'moved') sendJson(ctx.res, 200, withoutNulls(component))
}

export function registerComponentConfigRoutes(router: Router): void {
  const base = '/components/{component_id}/configs'
  router
    .add('GET', base, list)
    .add('POST', base, create)
    .add('GET', `${base}/current`, (ctx) => {
      const component = requireCatalogued(ctx)
      if (component === undefined) return
      const { component_id: id, current_version: current } = component
      const config = current === null ? undefined : ctx.app.catalog.config(id, current)
      if (config === undefined) return sendDetail(ctx.res, 404, `No current config for ${id}`)
      sendJson(ctx.res, 200, withoutNulls(config))
    })
    .add('GET', `${base}/{version}`, (ctx) => {
      const found = requireVersion(ctx)
      if (found !== undefined) sendJson(ctx.res, 200, withoutNulls(found.config))
    })
    .add('PATCH', `${base}/{version}`, update)
    .add('DELETE', `${base}/{version}`, remove)
    .add('POST', `${base}/{version}/set-current`, setCurrent)
}
