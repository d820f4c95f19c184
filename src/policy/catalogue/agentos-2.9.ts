import type { AgentOsCatalogue } from './agentos-catalogue.js'
import {
  RESOURCE_FAMILIES,
  type CatalogueRoute,
  type HandlerCheck,
  type ResourceFamily,
} from './route-facts.js'
import type { DefaultScopeMapping } from './scope-patterns.js'

/**
 * AgentOS 2.9's route catalogue, read from agno 2.9.0 (`libs/agno/agno/os/`): `scopes.py`
 * (the default table), `auth.py` (`require_resource_access`, the scheduler token),
 * `middleware/user_scope.py` and the routers (what each handler does with identity). Rule ids
 * are those of docs/agentos-compatibility.md.
 */

/** `get_default_scope_mappings()` of agno 2.9.0 (ROUTE-1): all 103 entries, in its order. */
export const SCOPE_MAPPINGS_2_9: readonly DefaultScopeMapping[] = [
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

const READ: HandlerCheck = Object.freeze({ kind: 'resource-access', action: 'read' })
const RUN: HandlerCheck = Object.freeze({ kind: 'resource-access', action: 'run' })

/**
 * The run routes of one family (RBAC-3, ISO-2, ISO-3): reading a component needs its read action,
 * reading and acting on its runs its run action; run, continue, cancel and resume pin or gate
 * identity. Agents and teams also fork sessions; workflows have no fork route.
 */
export function componentRoutes(family: ResourceFamily): CatalogueRoute[] {
  const base = `/${family}/{id}`
  const routes: CatalogueRoute[] = [
    { method: 'GET', path: `/${family}`, identity: 'listing' },
    { method: 'GET', path: base, checks: [READ] },
    { method: 'GET', path: `${base}/runs`, checks: [RUN] },
    { method: 'GET', path: `${base}/runs/{run_id}`, checks: [RUN] },
    { method: 'GET', path: `${base}/runs/{run_id}/checkpoints`, checks: [RUN] },
    { method: 'GET', path: `${base}/runs/{run_id}/checkpoints/{checkpoint_id}`, checks: [RUN] },
    { method: 'POST', path: `${base}/runs`, identity: 'run', checks: [RUN] },
    { method: 'POST', path: `${base}/runs/{run_id}/cancel`, identity: 'run-gated', checks: [RUN] },
    {
      method: 'POST',
      path: `${base}/runs/{run_id}/continue`,
      identity: 'run-continue',
      checks: [RUN],
    },
    { method: 'POST', path: `${base}/runs/{run_id}/resume`, identity: 'run-gated', checks: [RUN] },
  ]
  if (family !== 'workflows') {
    routes.push({
      method: 'POST',
      path: `${base}/sessions/{session_id}/fork`,
      identity: 'fork',
      checks: [RUN],
    })
  }
  return routes
}

/** AgentOS's public routes (AUTH-4) and the one that reports the auth mode (INFO-1). */
export const PUBLIC_ROUTES_2_9: readonly CatalogueRoute[] = [
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/info', identity: 'info' },
  { method: 'GET', path: '/docs' },
  { method: 'GET', path: '/docs/oauth2-redirect' },
  { method: 'GET', path: '/redoc' },
  { method: 'GET', path: '/openapi.json' },
]

/** Sessions, memories and learnings: the handlers that take the caller's id (ISO-2, ISO-3). */
export const USER_DATA_ROUTES_2_9: readonly CatalogueRoute[] = [
  { method: 'POST', path: '/sessions', identity: 'session-create' },
  { method: 'POST', path: '/memories', identity: 'memory-write' },
  { method: 'PATCH', path: '/memories/{memory_id}', identity: 'memory-write' },
  { method: 'DELETE', path: '/memories', identity: 'memory-write' },
  { method: 'POST', path: '/optimize-memories', identity: 'memory-write' },
  { method: '*', path: '/learnings', identity: 'learnings' },
  { method: '*', path: '/learnings/{**}', identity: 'learnings' },
]

export const AGENTOS_2_9: AgentOsCatalogue = {
  line: '2.9',
  versions: 'agno 2.9.x',
  scopeMappings: SCOPE_MAPPINGS_2_9,
  routes: [
    ...PUBLIC_ROUTES_2_9,
    ...RESOURCE_FAMILIES.flatMap(componentRoutes),
    ...USER_DATA_ROUTES_2_9,
  ],
  schedulerScopes: [
    'agents:read',
    'agents:run',
    'teams:read',
    'teams:run',
    'workflows:read',
    'workflows:run',
    'schedules:read',
    'schedules:write',
    'schedules:delete',
  ],
  a2a: {
    familyRoutes: [
      {
        method: 'GET',
        suffix: '.well-known/agent-card.json',
        action: 'read',
        families: RESOURCE_FAMILIES,
      },
      { method: 'POST', suffix: 'v1/message:send', action: 'run', families: RESOURCE_FAMILIES },
      { method: 'POST', suffix: 'v1/message:stream', action: 'run', families: RESOURCE_FAMILIES },
      { method: 'POST', suffix: 'v1/tasks:get', action: 'read', families: ['agents', 'teams'] },
      { method: 'POST', suffix: 'v1/tasks:cancel', action: 'run', families: ['agents', 'teams'] },
    ],
    dispatchRoutes: ['message/send', 'message/stream'],
  },
  serviceAccountsOwnerScoped: false,
  scheduleOwnerHeader: false,
}
