import { GatewayError } from '../errors.js'

/** An entry of AgentOS's `get_default_scope_mappings`: method, fnmatch pattern, scopes. */
export type DefaultScopeMapping = readonly [
  method: string,
  agentosPattern: string,
  scopes: readonly string[],
]

/** AgentOS 2.9.0's default route → scope table (ROUTE-1): all 103 entries, in its order. */
export const DEFAULT_SCOPE_MAPPINGS: readonly DefaultScopeMapping[] = [
  ['GET', '/config', ['config:read']],
  ['GET', '/models', ['config:read']],
  ['GET', '/agents', ['agents:read']],
  ['GET', '/agents/*', ['agents:read']],
  ['POST', '/agents', ['agents:write']],
  ['PATCH', '/agents/*', ['agents:write']],
  ['DELETE', '/agents/*', ['agents:delete']],
  ['POST', '/agents/*/runs', ['agents:run']],
  ['POST', '/agents/*/runs/*/continue', ['agents:run']],
  ['POST', '/agents/*/runs/*/cancel', ['agents:run']],
  ['GET', '/teams', ['teams:read']],
  ['GET', '/teams/*', ['teams:read']],
  ['POST', '/teams', ['teams:write']],
  ['PATCH', '/teams/*', ['teams:write']],
  ['DELETE', '/teams/*', ['teams:delete']],
  ['POST', '/teams/*/runs', ['teams:run']],
  ['POST', '/teams/*/runs/*/continue', ['teams:run']],
  ['POST', '/teams/*/runs/*/cancel', ['teams:run']],
  ['GET', '/workflows', ['workflows:read']],
  ['GET', '/workflows/*', ['workflows:read']],
  ['POST', '/workflows', ['workflows:write']],
  ['PATCH', '/workflows/*', ['workflows:write']],
  ['DELETE', '/workflows/*', ['workflows:delete']],
  ['POST', '/workflows/*/runs', ['workflows:run']],
  ['POST', '/workflows/*/runs/*/continue', ['workflows:run']],
  ['POST', '/workflows/*/runs/*/cancel', ['workflows:run']],
  ['GET', '/sessions', ['sessions:read']],
  ['GET', '/sessions/*', ['sessions:read']],
  ['POST', '/sessions', ['sessions:write']],
  ['POST', '/sessions/*/rename', ['sessions:write']],
  ['PATCH', '/sessions/*', ['sessions:write']],
  ['DELETE', '/sessions', ['sessions:delete']],
  ['DELETE', '/sessions/*', ['sessions:delete']],
  ['GET', '/memories', ['memories:read']],
  ['GET', '/memories/*', ['memories:read']],
  ['GET', '/memory_topics', ['memories:read']],
  ['GET', '/user_memory_stats', ['memories:read']],
  ['POST', '/memories', ['memories:write']],
  ['PATCH', '/memories/*', ['memories:write']],
  ['DELETE', '/memories', ['memories:delete']],
  ['DELETE', '/memories/*', ['memories:delete']],
  ['POST', '/optimize-memories', ['memories:write']],
  ['GET', '/learnings', ['learnings:read']],
  ['GET', '/learnings/*', ['learnings:read']],
  ['POST', '/learnings', ['learnings:write']],
  ['PATCH', '/learnings/*', ['learnings:write']],
  ['DELETE', '/learnings/*', ['learnings:delete']],
  ['GET', '/knowledge/content', ['knowledge:read']],
  ['GET', '/knowledge/content/*', ['knowledge:read']],
  ['GET', '/knowledge/config', ['knowledge:read']],
  ['POST', '/knowledge/content', ['knowledge:write']],
  ['PATCH', '/knowledge/content/*', ['knowledge:write']],
  ['POST', '/knowledge/search', ['knowledge:read']],
  ['DELETE', '/knowledge/content', ['knowledge:delete']],
  ['DELETE', '/knowledge/content/*', ['knowledge:delete']],
  ['GET', '/metrics', ['metrics:read']],
  ['POST', '/metrics/refresh', ['metrics:write']],
  ['GET', '/eval-runs', ['evals:read']],
  ['GET', '/eval-runs/*', ['evals:read']],
  ['POST', '/eval-runs', ['evals:write']],
  ['PATCH', '/eval-runs/*', ['evals:write']],
  ['DELETE', '/eval-runs', ['evals:delete']],
  ['GET', '/traces', ['traces:read']],
  ['GET', '/traces/*', ['traces:read']],
  ['GET', '/trace_session_stats', ['traces:read']],
  ['POST', '/service-accounts', ['service_accounts:write']],
  ['GET', '/service-accounts', ['service_accounts:read']],
  ['DELETE', '/service-accounts/*', ['service_accounts:delete']],
  ['GET', '/schedules', ['schedules:read']],
  ['GET', '/schedules/*', ['schedules:read']],
  ['POST', '/schedules', ['schedules:write']],
  ['PATCH', '/schedules/*', ['schedules:write']],
  ['DELETE', '/schedules/*', ['schedules:delete']],
  ['POST', '/schedules/*/enable', ['schedules:write']],
  ['POST', '/schedules/*/disable', ['schedules:write']],
  ['POST', '/schedules/*/trigger', ['schedules:write']],
  ['GET', '/schedules/*/runs', ['schedules:read']],
  ['GET', '/schedules/*/runs/*', ['schedules:read']],
  ['GET', '/approvals', ['approvals:read']],
  ['GET', '/approvals/count', ['approvals:read']],
  ['GET', '/approvals/*', ['approvals:read']],
  ['GET', '/approvals/*/status', ['approvals:read']],
  ['POST', '/approvals/*/resolve', ['approvals:write']],
  ['DELETE', '/approvals/*', ['approvals:delete']],
  ['POST', '/traces/search', ['traces:read']],
  ['POST', '/databases/all/migrate', ['config:write']],
  ['POST', '/databases/*/migrate', ['config:write']],
  ['POST', '/knowledge/remote-content', ['knowledge:write']],
  ['GET', '/knowledge/*/sources', ['knowledge:read']],
  ['GET', '/knowledge/*/sources/*/files', ['knowledge:read']],
  ['GET', '/registry', ['registry:read']],
  ['GET', '/components', ['components:read']],
  ['GET', '/components/*', ['components:read']],
  ['POST', '/components', ['components:write']],
  ['PATCH', '/components/*', ['components:write']],
  ['DELETE', '/components/*', ['components:delete']],
  ['GET', '/components/*/configs', ['components:read']],
  ['GET', '/components/*/configs/*', ['components:read']],
  ['GET', '/components/*/configs/current', ['components:read']],
  ['POST', '/components/*/configs', ['components:write']],
  ['PATCH', '/components/*/configs/*', ['components:write']],
  ['DELETE', '/components/*/configs/*', ['components:delete']],
  ['POST', '/components/*/configs/*/set-current', ['components:write']],
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
