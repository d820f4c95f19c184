/** Listing and reading agents, teams and workflows; plus the mapping-only entries with no route. */
import type { RequestContext } from '../context.js'
import { sendDetail, sendJson } from '../respond.js'
import type { Router } from '../router.js'
import { FAMILIES, FAMILY_INFO, type Component, type Family } from '../store.js'

/** Finds the `{family}/{id}` component of the path, or answers 404 and returns undefined. */
export function requireComponent(ctx: RequestContext, family: Family, id: string) {
  const component: Component | undefined = ctx.app.store.findComponent(family, id)
  if (component === undefined) sendDetail(ctx.res, 404, `${FAMILY_INFO[family].label} not found`)
  return component
}

const notFound = (ctx: RequestContext): void => sendDetail(ctx.res, 404, 'Not Found')

export function registerCatalogRoutes(router: Router): void {
  for (const family of FAMILIES) {
    const idParam = FAMILY_INFO[family].idKey
    router
      .add('GET', `/${family}`, (ctx) => sendJson(ctx.res, 200, ctx.app.store.components[family]))
      .add('GET', `/${family}/{${idParam}}`, (ctx) => {
        const component = requireComponent(ctx, family, ctx.params[idParam] ?? '')
        if (component !== undefined) sendJson(ctx.res, 200, component)
      })
      // the scope map names these, but AgentOS 2.9.0 has no such routes
      .add('POST', `/${family}`, notFound)
      .add('PATCH', `/${family}/{${idParam}}`, notFound)
      .add('DELETE', `/${family}/{${idParam}}`, notFound)
  }
}
