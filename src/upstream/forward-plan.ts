import type { Principal } from '../principal.js'
import type { BufferedResponse } from './upstream-client.js'

/** Header changes decided for one request: what of the client's goes, what the gateway sets. */
export interface HeaderPlan {
  /** Normalized names (lowercase, `_` as `-`) to drop: the credential header, a client X-User-ID. */
  readonly drop: ReadonlySet<string>
  /** A cookie to remove from `Cookie` (the JWT cookie when credentials are not forwarded). */
  readonly dropCookie: string | undefined
  /** Verified headers, set after every client copy of them is gone. */
  readonly inject: readonly (readonly [string, string])[]
}

/** Rewrites a buffered answer; asynchronous when it must record or look something up first. */
export type ResponseRewrite = (
  response: BufferedResponse,
) => BufferedResponse | Promise<BufferedResponse>

/**
 * What reaches the upstream for one request, decided before anything is sent: identity
 * enforcement builds it, each later stage (MCP, A2A, AG-UI, discovery documents) receives the
 * plan so far and returns a new one, and the upstream layer carries out the last. Plans are never
 * changed once built: a plan for the common case (a principal's headers, nothing rewritten) is
 * built once and shared by every request it fits. The body is not part of the plan: the steps
 * edit the request's one body view (`ClientBody`), which the upstream layer serializes once.
 */
export interface ForwardPlan {
  readonly headers: HeaderPlan
  /** The query string sent upstream; the client's when undefined. */
  readonly query: string | undefined
  /**
   * Set when the answer must be read and rewritten: it is then buffered (16 MiB at most) and
   * asked for without Accept-Encoding.
   */
  readonly rewriteResponse: ResponseRewrite | undefined
  /** Whose credential ends a long-lived connection (a WebSocket) when it expires or is revoked. */
  readonly endsWith: Principal | undefined
}

const NOTHING_DROPPED: ReadonlySet<string> = Object.freeze(new Set<string>())
const NOTHING_INJECTED: HeaderPlan['inject'] = Object.freeze([])

/** Nothing dropped, nothing injected (only the rules every request gets: hop-by-hop, identity). */
export const NO_HEADER_CHANGES: HeaderPlan = Object.freeze({
  drop: NOTHING_DROPPED,
  dropCookie: undefined,
  inject: NOTHING_INJECTED,
})

/** The request as the client sent it, cleaned by the rules every request gets. */
export const PASS_THROUGH: ForwardPlan = Object.freeze({
  headers: NO_HEADER_CHANGES,
  query: undefined,
  rewriteResponse: undefined,
  endsWith: undefined,
})

export function withQuery(plan: ForwardPlan, query: string): ForwardPlan {
  return { ...plan, query }
}

/** Adds a rewrite of the answer, applied after the ones already planned. */
export function thenRewriteResponse(plan: ForwardPlan, rewrite: ResponseRewrite): ForwardPlan {
  const earlier = plan.rewriteResponse
  if (earlier === undefined) return { ...plan, rewriteResponse: rewrite }
  return {
    ...plan,
    rewriteResponse: (response) => {
      const first = earlier(response)
      return first instanceof Promise ? first.then(rewrite) : rewrite(first)
    },
  }
}

/** Gives an injected header another value (names compared case-insensitively); absent: no change. */
export function withInjectedValue(plan: ForwardPlan, name: string, value: string): ForwardPlan {
  const lower = name.toLowerCase()
  const inject = plan.headers.inject
  if (!inject.some(([injected]) => injected.toLowerCase() === lower)) return plan
  return {
    ...plan,
    headers: {
      ...plan.headers,
      inject: inject.map(([injected, current]) =>
        injected.toLowerCase() === lower ? [injected, value] : [injected, current],
      ),
    },
  }
}
