/**
 * Stand-ins for what AgentOS serves under `mcp_auth`: the protected-resource metadata and the
 * built-in authorization server's client registration (public clients only).
 */
import { randomUUID } from 'node:crypto'
import { jsonObject, stringField } from '../params.js'
import { sendJson } from '../respond.js'
import type { Router } from '../router.js'

export function registerMcpOauthRoutes(router: Router): void {
  router
    .add('GET', '/.well-known/oauth-protected-resource/mcp', (ctx) => {
      const host = ctx.req.headers.host ?? 'localhost'
      sendJson(ctx.res, 200, {
        resource: `http://${host}/mcp`,
        authorization_servers: [`http://${host}/`],
        bearer_methods_supported: ['header'],
      })
    })
    .add('POST', '/register', (ctx) => {
      const body = jsonObject(ctx)
      const method = stringField(body, 'token_endpoint_auth_method') ?? 'none'
      if (method !== 'none') {
        return sendJson(ctx.res, 400, {
          error: 'invalid_client_metadata',
          error_description:
            'Only public clients (token_endpoint_auth_method "none") are supported',
        })
      }
      sendJson(ctx.res, 201, {
        client_id: randomUUID(),
        token_endpoint_auth_method: 'none',
        redirect_uris: body?.['redirect_uris'] ?? [],
      })
    })
}
