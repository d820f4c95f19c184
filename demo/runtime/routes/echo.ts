/** `/echo[/...]` answers with the recorded request, so a test sees exactly what arrived. */
import type { RequestContext } from '../context.js'
import { sendJson } from '../respond.js'
import type { Router } from '../router.js'

export const ECHO_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

function echo(ctx: RequestContext): void {
  const { rawHeaders: _rawHeaders, ...recorded } = ctx.recorded
  sendJson(ctx.res, 200, recorded)
}

export function registerEchoRoutes(router: Router): void {
  for (const method of ECHO_METHODS) {
    router.add(method, '/echo', echo).add(method, '/echo/{rest...}', echo)
  }
}
