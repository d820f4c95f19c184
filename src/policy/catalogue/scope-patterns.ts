import { GatewayError } from '../../errors.js'

/** An entry of AgentOS's `get_default_scope_mappings`: method, fnmatch pattern, scopes. */
export type DefaultScopeMapping = readonly [
  method: string,
  agentosPattern: string,
  scopes: readonly string[],
]

/**
 * Translates an AgentOS fnmatch pattern into a Portcullis segment template: a `*` (or `{param}`,
 * which AgentOS turns into `*`) that is the last segment becomes `{**}`, any other one becomes a
 * one-segment `*`.
 *
 * Why this gives AgentOS's outcome on every route AgentOS really defines: fnmatch's `*` crosses
 * `/`, which matters only for a trailing `*`: `GET /agents/*` also covers deeper real routes such
 * as `GET /agents/{id}/runs/{run}/checkpoints/{i}` that have no entry of their own, and `{**}`
 * keeps exactly that. A `*` between literals stands where the real route has one path parameter,
 * and FastAPI path parameters never contain `/`, so one segment matches the same real paths (it
 * differs only on paths such as `POST /agents/a/b/runs`, which AgentOS routes to 404). Where two
 * entries overlap on a real path (`GET /components/{id}` and `GET /components/{id}/configs/{n}`),
 * they require the same scopes, so "most specific wins" and "first match wins" agree; the unit
 * tests check this against a reference fnmatch implementation.
 */
export function agentosPatternToTemplate(pattern: string): string {
  const segments = pattern.split('/').slice(1)
  const translated = segments.map((segment, index) => {
    const isWildcard = segment === '*' || /^\{[^{}/]+\}$/.test(segment)
    if (!isWildcard) {
      if (/[*?[\]{}]/.test(segment)) {
        throw new GatewayError('INTERNAL', `Unsupported AgentOS pattern segment: ${pattern}`, {
          reason: 'policy.pattern',
        })
      }
      return segment
    }
    return index === segments.length - 1 ? '{**}' : '*'
  })
  return `/${translated.join('/')}`
}
