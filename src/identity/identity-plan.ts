import type { IncomingHttpHeaders } from 'node:http'
import type { ClientBody } from '../inbound/client-body.js'
import type { Principal } from '../principal.js'
import type { Config } from '../config/schema.js'
import type { MatchedRoute } from '../policy/catalogue/route-catalogue.js'

/** The config keys identity enforcement reads; the whole `Config` fits. */
export interface IdentityConfig {
  readonly auth: Pick<
    Config['auth'],
    'admin_scope' | 'user_isolation' | 'token_source' | 'token_header_key' | 'cookie_name'
  >
  readonly identity: Config['identity']
  readonly upstream: Pick<Config['upstream'], 'url'>
}

export interface PlanInput {
  /** ANONYMOUS for excluded routes, OPTIONS and open-mode anonymous callers. */
  readonly principal: Principal
  readonly method: string
  /** The canonical path: decoded once, trailing slashes stripped. */
  readonly path: string
  /** The route catalogue's match for the request. */
  readonly route: MatchedRoute
  /** The raw query string without `?`. */
  readonly query: string
  readonly headers: IncomingHttpHeaders
  /** The request's body, read only when a pin may change it; none for an upgrade. */
  readonly body?: ClientBody | undefined
  /** From the authorizer, for `GET /agents|/teams|/workflows`. */
  readonly accessibleIds?: ReadonlySet<string> | 'all' | undefined
  /**
   * An excluded route or a preflight: no credential was looked at, so no identity of any kind
   * reaches the upstream, the client's `X-User-ID` included. Otherwise a caller without a user id
   * (open-mode anonymous, the security key) has its `X-User-ID` passed on, as AgentOS honours it.
   */
  readonly public?: boolean | undefined
}
