import type { AgentOsCatalogue } from './agentos-catalogue.js'
import { AGENTOS_2_9, SCOPE_MAPPINGS_2_9 } from './agentos-2.9.js'
import {
  RESOURCE_FAMILIES,
  type CatalogueRoute,
  type HandlerCheck,
  type OwnedResource,
  type OwnershipVerb,
} from './route-facts.js'
import type { DefaultScopeMapping } from './scope-patterns.js'

/**
 * AgentOS 3.0's route catalogue (agno 3.0.0a3), written as the changes from 2.9: 3.0 moved many
 * checks into route handlers that read AgentOS's own request state (`get_scoped_user_id`,
 * `_require_queue_admin`, `_require_endpoint_permission`, `_require_write_ownership`,
 * `allow_draft_preview`), which an open instance never fills. Rule ids are those of
 * docs/agentos-compatibility.md.
 */

/** 2.9's table with the two rules 3.0 added, where `scopes.py` puts them (V3-SCOPE-1). */
export const SCOPE_MAPPINGS_3_0: readonly DefaultScopeMapping[] = SCOPE_MAPPINGS_2_9.flatMap(
  (mapping): DefaultScopeMapping[] => {
    const [method, pattern] = mapping
    if (method === 'POST' && pattern === '/metrics/refresh') {
      return [mapping, ['GET', '/metrics/refresh/status', ['metrics:read']]]
    }
    if (method === 'DELETE' && pattern === '/components/*') {
      return [mapping, ['POST', '/components/*/restore', ['components:delete']]]
    }
    return [mapping]
  },
)

export const QUEUE_ADMIN_REQUIRED = 'Job queue operations require an admin scope'

const IDENTITY: HandlerCheck = Object.freeze({ kind: 'identity-required' })
const QUEUE_ADMIN: HandlerCheck = Object.freeze({
  kind: 'admin-when-identified',
  detail: QUEUE_ADMIN_REQUIRED,
})

function owned(resource: OwnedResource, verb: OwnershipVerb, notFound?: string): HandlerCheck {
  return notFound === undefined
    ? { kind: 'ownership', resource, verb }
    : { kind: 'ownership', resource, verb, notFound }
}

const REFERENCES: HandlerCheck = Object.freeze({ kind: 'component-references' })

/** Adds checks to a route of an earlier line (matched by method and path). */
function withChecks(
  routes: readonly CatalogueRoute[],
  extra: (route: CatalogueRoute) => readonly HandlerCheck[],
): CatalogueRoute[] {
  return routes.map((route) => {
    const checks = extra(route)
    return checks.length === 0 ? route : { ...route, checks: [...(route.checks ?? []), ...checks] }
  })
}

/** `GET /agents/{id}`, `/teams/{id}`, `/workflows/{id}`: a read of one component. */
const COMPONENT_READS: ReadonlySet<string> = new Set(
  RESOURCE_FAMILIES.map((family) => `/${family}/{id}`),
)

/**
 * 2.9's routes, with 3.0's new handler checks: a run whose form names a draft `version`, a
 * component read whose query does, a continue of a run stamped with one (V3-DRAFT-3,
 * V3-DRAFT-2G, V3-DRAFT-3G), and the identity a scoped caller
 * needs under isolation (V3-ISO-1).
 */
const CHANGED_ROUTES = withChecks(AGENTOS_2_9.routes, (route) => {
  const checks: HandlerCheck[] = []
  if (route.identity === 'run') checks.push({ kind: 'draft-preview', field: 'form' })
  if (route.identity === 'run-continue') checks.push({ kind: 'draft-preview', field: 'stamp' })
  if (route.method === 'GET' && COMPONENT_READS.has(route.path)) {
    checks.push({ kind: 'draft-preview', field: 'query' })
  }
  const scopedData =
    route.identity !== undefined &&
    route.identity !== 'listing' &&
    route.identity !== 'info' &&
    route.identity !== 'fork'
  if (scopedData) checks.push(IDENTITY)
  return checks
})

/** `_require_queue_admin` guards the whole router (V3-QUEUE-1, V3-QUEUE-2). */
const QUEUE_ROUTES: readonly CatalogueRoute[] = [
  { method: 'GET', path: '/queue/jobs', checks: [QUEUE_ADMIN] },
  { method: 'GET', path: '/queue/jobs/{job_id}', checks: [QUEUE_ADMIN] },
  { method: 'POST', path: '/queue/jobs/{job_id}/requeue', checks: [QUEUE_ADMIN] },
  { method: 'GET', path: '/queue/stats', checks: [QUEUE_ADMIN] },
]

/**
 * Schedules (V3-SCHED-1 to V3-SCHED-3): a scoped caller sees and changes only its own; the target
 * of a schedule is checked when it is created, repointed, enabled or triggered.
 */
const SCHEDULE_ROUTES: readonly CatalogueRoute[] = [
  { method: 'GET', path: '/schedules', checks: [IDENTITY, owned('schedule', 'list')] },
  {
    method: 'POST',
    path: '/schedules',
    checks: [IDENTITY, { kind: 'schedule-target', target: 'body' }, owned('schedule', 'create')],
  },
  {
    method: 'GET',
    path: '/schedules/{schedule_id}',
    checks: [IDENTITY, owned('schedule', 'read')],
  },
  {
    method: 'PATCH',
    path: '/schedules/{schedule_id}',
    checks: [IDENTITY, owned('schedule', 'modify'), { kind: 'schedule-target', target: 'changed' }],
  },
  {
    method: 'DELETE',
    path: '/schedules/{schedule_id}',
    checks: [IDENTITY, owned('schedule', 'delete')],
  },
  {
    method: 'POST',
    path: '/schedules/{schedule_id}/enable',
    checks: [IDENTITY, owned('schedule', 'modify'), { kind: 'schedule-target', target: 'stored' }],
  },
  {
    method: 'POST',
    path: '/schedules/{schedule_id}/disable',
    checks: [IDENTITY, owned('schedule', 'modify')],
  },
  {
    method: 'POST',
    path: '/schedules/{schedule_id}/trigger',
    checks: [
      IDENTITY,
      owned('schedule', 'modify'),
      { kind: 'schedule-target', target: 'triggered' },
    ],
  },
  {
    method: 'GET',
    path: '/schedules/{schedule_id}/runs',
    checks: [IDENTITY, owned('schedule', 'read')],
  },
  {
    method: 'GET',
    path: '/schedules/{schedule_id}/runs/{run_id}',
    // The handler reads the run alone, scoped to the caller: another owner's is the run's 404.
    checks: [IDENTITY, owned('schedule', 'read', 'Schedule run not found')],
  },
]

/**
 * Components (V3-COMP-1 to V3-COMP-3): own and shared rows are visible; shared ones are read-only;
 * a config may name only components the caller sees.
 */
const COMPONENT_ROUTES: readonly CatalogueRoute[] = [
  { method: 'GET', path: '/components', checks: [IDENTITY, owned('component', 'list')] },
  {
    method: 'POST',
    path: '/components',
    checks: [IDENTITY, REFERENCES, owned('component', 'create')],
  },
  {
    method: 'GET',
    path: '/components/{component_id}',
    checks: [IDENTITY, owned('component', 'read')],
  },
  {
    method: 'PATCH',
    path: '/components/{component_id}',
    checks: [IDENTITY, owned('component', 'modify')],
  },
  {
    method: 'DELETE',
    path: '/components/{component_id}',
    checks: [IDENTITY, owned('component', 'delete')],
  },
  {
    method: 'POST',
    path: '/components/{component_id}/restore',
    checks: [IDENTITY, owned('component', 'restore')],
  },
  {
    method: 'GET',
    path: '/components/{component_id}/configs',
    checks: [IDENTITY, owned('component', 'read')],
  },
  {
    method: 'POST',
    path: '/components/{component_id}/configs',
    checks: [IDENTITY, owned('component', 'modify'), REFERENCES],
  },
  {
    method: 'GET',
    path: '/components/{component_id}/configs/current',
    checks: [IDENTITY, owned('component', 'read')],
  },
  {
    method: 'GET',
    path: '/components/{component_id}/configs/{version}',
    checks: [IDENTITY, owned('component', 'read')],
  },
  {
    method: 'PATCH',
    path: '/components/{component_id}/configs/{version}',
    checks: [IDENTITY, owned('component', 'modify'), REFERENCES],
  },
  {
    method: 'DELETE',
    path: '/components/{component_id}/configs/{version}',
    checks: [IDENTITY, owned('component', 'delete')],
  },
  {
    method: 'POST',
    path: '/components/{component_id}/configs/{version}/set-current',
    checks: [IDENTITY, owned('component', 'modify')],
  },
]

/**
 * Knowledge content (V3-KNOW-1, a choice of Portcullis by analogy with components): uploads are
 * owned, a scoped caller sees its own and shared content, shared content is read-only to it, and
 * it may not delete everything at once.
 */
const KNOWLEDGE_ROUTES: readonly CatalogueRoute[] = [
  {
    method: 'GET',
    path: '/knowledge/content',
    checks: [IDENTITY, owned('knowledge_content', 'list')],
  },
  {
    method: 'POST',
    path: '/knowledge/content',
    checks: [IDENTITY, owned('knowledge_content', 'create')],
  },
  {
    method: 'POST',
    path: '/knowledge/remote-content',
    checks: [IDENTITY, owned('knowledge_content', 'create')],
  },
  {
    method: 'DELETE',
    path: '/knowledge/content',
    checks: [IDENTITY, owned('knowledge_content', 'delete-all')],
  },
  {
    method: 'GET',
    path: '/knowledge/content/{content_id}',
    checks: [IDENTITY, owned('knowledge_content', 'read')],
  },
  {
    method: 'GET',
    path: '/knowledge/content/{content_id}/status',
    checks: [IDENTITY, owned('knowledge_content', 'read')],
  },
  {
    method: 'PATCH',
    path: '/knowledge/content/{content_id}',
    checks: [IDENTITY, owned('knowledge_content', 'modify')],
  },
  {
    method: 'DELETE',
    path: '/knowledge/content/{content_id}',
    checks: [IDENTITY, owned('knowledge_content', 'delete')],
  },
]

/** Session reads and writes are the caller's own under isolation (V3-ISO-1, V3-MEDIA-1). */
const USER_DATA_ROUTES: readonly CatalogueRoute[] = [
  { method: 'GET', path: '/sessions', checks: [IDENTITY] },
  { method: 'GET', path: '/sessions/{**}', checks: [IDENTITY] },
  { method: 'PATCH', path: '/sessions/{session_id}', checks: [IDENTITY] },
  { method: 'POST', path: '/sessions/{session_id}/rename', checks: [IDENTITY] },
  { method: 'DELETE', path: '/sessions', checks: [IDENTITY] },
  { method: 'DELETE', path: '/sessions/{session_id}', checks: [IDENTITY] },
  { method: 'GET', path: '/memories', checks: [IDENTITY] },
  { method: 'GET', path: '/memories/{memory_id}', checks: [IDENTITY] },
  { method: 'DELETE', path: '/memories/{memory_id}', checks: [IDENTITY] },
  { method: 'GET', path: '/memory_topics', checks: [IDENTITY] },
  { method: 'GET', path: '/user_memory_stats', checks: [IDENTITY] },
  { method: 'GET', path: '/traces', checks: [IDENTITY] },
  { method: 'GET', path: '/traces/{trace_id}', checks: [IDENTITY] },
  { method: 'POST', path: '/traces/search', checks: [IDENTITY] },
  { method: 'GET', path: '/trace_session_stats', checks: [IDENTITY] },
  { method: 'GET', path: '/metrics', checks: [IDENTITY] },
  { method: 'POST', path: '/metrics/refresh', checks: [IDENTITY] },
]

export const AGENTOS_3_0: AgentOsCatalogue = {
  line: '3.0',
  versions: 'agno 3.0.x (read at 3.0.0a3)',
  scopeMappings: SCOPE_MAPPINGS_3_0,
  routes: [
    ...CHANGED_ROUTES,
    ...USER_DATA_ROUTES,
    ...QUEUE_ROUTES,
    ...SCHEDULE_ROUTES,
    ...COMPONENT_ROUTES,
    ...KNOWLEDGE_ROUTES,
  ],
  // The executor only POSTs a schedule's own run endpoint (V3-AUTH-1).
  schedulerScopes: AGENTOS_2_9.schedulerScopes.filter(
    (scope) => scope !== 'schedules:write' && scope !== 'schedules:delete',
  ),
  // The deprecated dynamic dispatch is gone, route and rule (V3-A2A-1).
  a2a: { familyRoutes: AGENTOS_2_9.a2a.familyRoutes, dispatchRoutes: [] },
  serviceAccountsOwnerScoped: true,
  scheduleOwnerHeader: true,
}
