/**
 * Components as an open AgentOS 3.0 answers them (routers/components/components.py). With no
 * auth state every caller is unscoped: nothing is hidden, no ownership is checked (V3-COMP-1,
 * V3-COMP-2), a new row gets no owner and its id no owner suffix (V3-COMP-3).
 */
import type { RequestContext } from '../../context.js'
import type { JsonObject } from '../../params.js'
import { sendDetail, sendEmpty, sendJson } from '../../respond.js'
import type { Router } from '../../router.js'
import { nowSeconds } from '../../store.js'
import { type Rules, validJsonBody, validQuery } from '../../validation.js'
import { COMPONENT_TYPES, type ComponentType, idFromName, withoutNulls } from '../../v3/catalog.js'
import { registerComponentConfigRoutes } from './component-configs.js'
import { moveCurrent, requireCatalogued, VERSION_RULES, versionFields } from './component-lookup.js'
import { limitRule, PAGE, pageOf } from './pages.js'

const TYPE_RULE = { kind: 'enum', values: COMPONENT_TYPES } as const

/** `ComponentCreate` */
const CREATE_RULES: Rules = {
  name: { kind: 'string', required: true },
  component_id: { kind: 'string', nullable: true },
  component_type: { ...TYPE_RULE, required: true },
  description: { kind: 'string', nullable: true, default: null },
  metadata: { kind: 'object', nullable: true, default: null },
  config: { kind: 'object', nullable: true },
  ...VERSION_RULES,
}

/** `ComponentUpdate` */
const UPDATE_RULES: Rules = {
  name: { kind: 'string', nullable: true },
  description: { kind: 'string', nullable: true },
  component_type: { kind: 'string', nullable: true },
  metadata: { kind: 'object', nullable: true },
  current_version: { kind: 'int', nullable: true },
}

function list(ctx: RequestContext): void {
  const query = validQuery(ctx, {
    component_type: TYPE_RULE,
    page: PAGE,
    limit: limitRule(20, 100),
    include_deleted: { kind: 'bool', default: false },
  })
  if (query === undefined) return
  const type = query['component_type'] as ComponentType | undefined
  const rows = ctx.app.catalog.list(type, query['include_deleted'] as boolean).map(withoutNulls)
  sendJson(ctx.res, 200, pageOf(rows, query['page'] as number, query['limit'] as number))
}

function create(ctx: RequestContext): void {
  const body = validJsonBody(ctx, CREATE_RULES)
  const version = body === undefined ? undefined : versionFields(ctx, body)
  if (body === undefined || version === undefined) return
  const id =
    (body['component_id'] as string | null | undefined) ?? idFromName(body['name'] as string)
  // guessed text: the catalogue's conflict error was not read
  if (ctx.app.catalog.has(id)) return sendDetail(ctx.res, 409, `Component ${id} already exists`)
  const component = ctx.app.catalog.create(
    {
      component_id: id,
      component_type: body['component_type'] as ComponentType,
      name: body['name'] as string,
      description: body['description'] as string | null,
      metadata: body['metadata'] as JsonObject | null,
    },
    version,
  )
  sendJson(ctx.res, 201, withoutNulls(component))
}

function update(ctx: RequestContext): void {
  const body = validJsonBody(ctx, UPDATE_RULES)
  const component = body === undefined ? undefined : requireCatalogued(ctx)
  if (body === undefined || component === undefined) return
  const type = body['component_type']
  if (typeof type === 'string' && !(COMPONENT_TYPES as readonly string[]).includes(type)) {
    return sendDetail(ctx.res, 400, `'${type}' is not a valid ComponentType`)
  }
  const version = body['current_version']
  if (typeof version === 'number') {
    const outcome = moveCurrent(ctx, component, version)
    if (outcome === 'missing') {
      sendDetail(ctx.res, 404, `Config ${component.component_id} v${version} not found`)
    }
    if (outcome !== 'moved') return
  }
  for (const field of ['name', 'description', 'metadata', 'component_type'] as const) {
    if (body[field] !== undefined && body[field] !== null) {
      Object.assign(component, { [field]: body[field] })
    }
  }
  component.updated_at = nowSeconds()
  sendJson(ctx.res, 200, withoutNulls(component))
}

function restore(ctx: RequestContext): void {
  const component = requireCatalogued(ctx, true)
  if (component === undefined) return
  if (component.deleted_at === null) return sendDetail(ctx.res, 409, 'Component is not archived')
  component.deleted_at = null
  component.updated_at = nowSeconds()
  sendJson(ctx.res, 200, withoutNulls(component))
}

export function registerComponentRoutes(router: Router): void {
  router
    .add('GET', '/components', list)
    .add('POST', '/components', create)
    .add('GET', '/components/{component_id}', (ctx) => {
      const query = validQuery(ctx, { include_deleted: { kind: 'bool', default: false } })
      const component =
        query === undefined ? undefined : requireCatalogued(ctx, query['include_deleted'] === true)
      if (component !== undefined) sendJson(ctx.res, 200, withoutNulls(component))
    })
    .add('PATCH', '/components/{component_id}', update)
    .add('DELETE', '/components/{component_id}', (ctx) => {
      const component = requireCatalogued(ctx)
      if (component === undefined) return
      // an archive, not a removal: `include_deleted` still shows it and restore brings it back
      component.deleted_at = nowSeconds()
      sendEmpty(ctx.res, 204)
    })
    .add('POST', '/components/{component_id}/restore', restore)
  registerComponentConfigRoutes(router)
}
