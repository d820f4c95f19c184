/**
 * The routes on which AgentOS handlers read or gate identity (ISO-2, ISO-3, RBAC-2). Matched on
 * the canonical path, which is case-sensitive like AgentOS's router.
 */
export type IdentityRoute =
  /** `POST /{agents|teams|workflows}/{id}/runs` */
  | 'run'
  /** `POST …/runs/{run}/continue`: a run route and an ownership gate */
  | 'run-continue'
  /** `POST …/runs/{run}/cancel` and `…/resume`: ownership gates */
  | 'run-gated'
  /** `POST /{agents|teams}/{id}/sessions/{sid}/fork` */
  | 'fork'
  /** `POST /sessions` */
  | 'session-create'
  /** `POST /memories`, `PATCH /memories/{id}`, `DELETE /memories`, `POST /optimize-memories` */
  | 'memory-write'
  /** `/learnings` and below, any method */
  | 'learnings'
  /** `GET /agents`, `GET /teams`, `GET /workflows` */
  | 'listing'
  /** `GET /info` */
  | 'info'
  | 'other'

const FAMILIES = new Set(['agents', 'teams', 'workflows'])

export function classifyRoute(method: string, path: string): IdentityRoute {
  switch (path) {
    case '/info':
      return method === 'GET' ? 'info' : 'other'
    case '/agents':
    case '/teams':
    case '/workflows':
      return method === 'GET' ? 'listing' : 'other'
    case '/sessions':
      return method === 'POST' ? 'session-create' : 'other'
    case '/memories':
      return method === 'POST' || method === 'DELETE' ? 'memory-write' : 'other'
    case '/optimize-memories':
      return method === 'POST' ? 'memory-write' : 'other'
    case '/learnings':
      return 'learnings'
  }
  if (path.startsWith('/learnings/')) return 'learnings'
  if (method === 'PATCH' && path.startsWith('/memories/') && path.indexOf('/', 10) === -1) {
    return 'memory-write'
  }
  if (method !== 'POST') return 'other'
  return classifyComponentPost(path)
}

function classifyComponentPost(path: string): IdentityRoute {
  const familyEnd = path.indexOf('/', 1)
  if (familyEnd === -1 || !FAMILIES.has(path.slice(1, familyEnd))) return 'other'
  const segments = path.split('/')
  if (segments.length === 4 && segments[3] === 'runs') return 'run'
  if (segments.length !== 6) return 'other'
  if (segments[3] === 'runs') {
    if (segments[5] === 'continue') return 'run-continue'
    if (segments[5] === 'cancel' || segments[5] === 'resume') return 'run-gated'
  }
  if (segments[3] === 'sessions' && segments[5] === 'fork' && segments[1] !== 'workflows')
    return 'fork'
  return 'other'
}

/** The 403 text for a scoped caller naming another user on a learnings route (ISO-3). */
export function learningsDenial(method: string, path: string): string {
  if (method === 'DELETE') return 'Cannot delete learnings for another user'
  if (method === 'GET' || method === 'HEAD') {
    return path === '/learnings/users'
      ? 'Cannot list learning users for another user'
      : 'Cannot list learnings for another user'
  }
  return 'Cannot create learnings for another user'
}
