/** Public metadata routes and the unfiltered config. */
import type { RequestContext } from '../context.js'
import { sendHtml, sendJson } from '../respond.js'
import type { Router } from '../router.js'
import { FAMILIES } from '../store.js'

export const RUNTIME_NAME = 'AgentOS demo runtime'
export const RUNTIME_VERSION = '2.9.0-demo'
/** The agno release this runtime behaves as (`/info` reports it as AgentOS does). */
export const AGNO_VERSION = '2.9.0'

function docsPage(title: string) {
  return (ctx: RequestContext) =>
    sendHtml(ctx.res, 200, `<!doctype html><html><head><title>${title}</title></head></html>`)
}

function catalog(ctx: RequestContext) {
  const entries = FAMILIES.map((family) => [family, ctx.app.store.components[family]] as const)
  return Object.fromEntries(entries)
}

export function registerCoreRoutes(router: Router): void {
  router
    .add('GET', '/', (ctx) =>
      sendJson(ctx.res, 200, {
        name: RUNTIME_NAME,
        os_id: ctx.app.settings.osId,
        version: RUNTIME_VERSION,
      }),
    )
    .add('GET', '/health', (ctx) =>
      sendJson(ctx.res, 200, { status: 'ok', instantiated_at: ctx.app.settings.instantiatedAt }),
    )
    .add('GET', '/info', (ctx) =>
      sendJson(ctx.res, 200, {
        os_id: ctx.app.settings.osId,
        name: RUNTIME_NAME,
        auth_mode: 'none',
        version: RUNTIME_VERSION,
        agno_version: AGNO_VERSION,
      }),
    )
    .add('GET', '/docs', docsPage('AgentOS demo runtime - Swagger UI'))
    .add('GET', '/docs/oauth2-redirect', docsPage('Swagger UI: OAuth2 Redirect'))
    .add('GET', '/redoc', docsPage('AgentOS demo runtime - ReDoc'))
    .add('GET', '/openapi.json', (ctx) =>
      sendJson(ctx.res, 200, {
        openapi: '3.1.0',
        info: { title: RUNTIME_NAME, version: RUNTIME_VERSION },
        paths: {},
      }),
    )
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
    .add('GET', '/models', (ctx) =>
      sendJson(ctx.res, 200, [
        { id: 'echo-1', provider: 'demo' },
        { id: 'echo-2', provider: 'demo' },
      ]),
    )
}
