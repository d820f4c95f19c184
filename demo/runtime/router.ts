/**
 * A minimal Starlette-like router: routes are tried in registration order, the first one whose
 * path and method match wins; a path match with the wrong method gives 405, no path match 404.
 */
import type { RequestContext } from './context.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
export type Handler = (ctx: RequestContext) => void | Promise<void>

export interface RouteOptions {
  /** do not buffer JSON bodies for this route (streamed uploads) */
  streamBody?: boolean
}

export interface Route {
  method: Method
  /** e.g. `/agents/{agent_id}/runs`; a final `{name...}` segment matches the rest of the path */
  template: string
  handler: Handler
  options: RouteOptions
  segments: string[]
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: Method[] }
  | { kind: 'not-found' }

function matchSegments(segments: string[], path: string): Record<string, string> | undefined {
  const parts = path.split('/').slice(1)
  const params: Record<string, string> = {}
  for (const [index, segment] of segments.entries()) {
    const rest = /^\{(\w+)\.\.\.\}$/.exec(segment)
    if (rest?.[1] !== undefined) {
      params[rest[1]] = parts.slice(index).join('/')
      return params
    }
    const part = parts[index]
    if (part === undefined) return undefined
    const param = /^\{(\w+)\}$/.exec(segment)
    if (param?.[1] !== undefined) {
      if (part === '') return undefined
      params[param[1]] = part
    } else if (part !== segment) {
      return undefined
    }
  }
  return parts.length === segments.length ? params : undefined
}

export class Router {
  readonly #routes: Route[] = []

  add(method: Method, template: string, handler: Handler, options: RouteOptions = {}): this {
    this.#routes.push({
      method,
      template,
      handler,
      options,
      segments: template.split('/').slice(1),
    })
    return this
  }

  /** every route, in registration order */
  routes(): readonly Route[] {
    return this.#routes
  }

  match(method: string, path: string): RouteMatch {
    const allow: Method[] = []
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, path)
      if (params === undefined) continue
      if (route.method === method) return { kind: 'found', route, params }
      if (!allow.includes(route.method)) allow.push(route.method)
    }
    return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' }
  }
}
