/** Public metadata routes and the unfiltered config. */
import type { RequestContext } from '../context.js'
import { LINES } from '../lines.js'
import { sendHtml, sendJson } from '../respond.js'
import type { Handler, Router } from '../router.js'
import { FAMILIES } from '../store.js'

export const RUNTIME_NAME = 'AgentOS demo runtime'
export const RUNTIME_VERSION = LINES['2.9'].runtimeVersion

function docsPage(title: string) {
  return (ctx: RequestContext) =>
    sendHtml(ctx.res, 200, `<!doctype html><html><head><title>${title}</title></head></html>`)
}

function catalog(ctx: RequestContext) {
  const entries = FAMILIES.map((family) => [family, ctx.app.store.components[family]] as const)
  return Object.fromEntries(entries)
}

export function home(ctx: RequestContext): void {
  sendJson(ctx.res, 200, {
    name: RUNTIME_NAME,
    os_id: ctx.app.settings.osId,
    version: RUNTIME_VERSION,
  })
}

export function homeV3(ctx: RequestContext): void {
  sendJson(ctx.res, 200, { name: 'AgentOS', health: '/health', info: '/info', docs: '/docs' })
}

function info(ctx: RequestContext): void {
  const { agentos, agnoVersion, osId } = ctx.app.settings
  const { runtimeVersion, osVersion } = LINES[agentos]
  sendJson(ctx.res, 200, {
    os_id: osId,
    name: RUNTIME_NAME,
    auth_mode: 'none',
    version: runtimeVersion,
    agno_version: agnoVersion,
    ...(osVersion === undefined ? {} : { os_version: osVersion }),
  })
}

/** FastAPI's document lists every route: `{param}` templates, lower-case methods. */
function openApi(router: Router) {
  return (ctx: RequestContext): void => {
    const paths: Record<string, Record<string, object>> = {}
    for (const route of router.routes()) {
      const template = route.template.replace(/\{(\w+)\.\.\.\}/g, '{$1}') || '/'
      ;(paths[template] ??= {})[route.method.toLowerCase()] = {
        responses: { '200': { description: 'Successful Response' } },
      }
    }
    const version = LINES[ctx.app.settings.agentos].runtimeVersion
    sendJson(ctx.res, 200, { openapi: '3.1.0', info: { title: RUNTIME_NAME, version }, paths })
  }
}

export function registerCoreRoutes(router: Router, homePage: Handler): void {
  router
    .add('GET', '/', homePage)
    .add('GET', '/health', (ctx) =>
      sendJson(ctx.res, 200, { status: 'ok', instantiated_at: ctx.app.settings.instantiatedAt }),
    )
    .add('GET', '/info', info)
    .add('GET', '/docs', docsPage('AgentOS demo runtime - Swagger UI'))
    .add('GET', '/docs/oauth2-redirect', docsPage('Swagger UI: OAuth2 Redirect'))
    .add('GET', '/redoc', docsPage('AgentOS demo runtime - ReDoc'))
    .add('GET', '/openapi.json', openApi(router))
    .add('GET', '/config', (ctx) =>
      sendJson(ctx.res, 200, {
        os_id: ctx.app.settings.osId,
        name: RUNTIME_NAME,
        ...catalog(ctx),
        interfaces: [
          { type: 'a2a', route: '/a2a' },
          { type: 'agui', route: '/agui' },
          { type: 'slack', route: '/slack' },
        ],
      }),
    )
}

/** 3.0 removed the route (its scope rule stayed). */
export function registerModelsRoute(router: Router): void {
  router.add('GET', '/models', (ctx) =>
    sendJson(ctx.res, 200, [
      { id: 'echo-1', provider: 'demo' },
      { id: 'echo-2', provider: 'demo' },
    ]),
  )
}
