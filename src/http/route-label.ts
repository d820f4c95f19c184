/** First path segments the AgentOS route table knows; anything else is counted as `other`. */
const FAMILIES = new Set([
  'config',
  'models',
  'agents',
  'teams',
  'workflows',
  'sessions',
  'memories',
  'memory_topics',
  'user_memory_stats',
  'optimize-memories',
  'learnings',
  'knowledge',
  'metrics',
  'eval-runs',
  'traces',
  'trace_session_stats',
  'service-accounts',
  'schedules',
  'approvals',
  'databases',
  'registry',
  'components',
  'health',
  'info',
  'docs',
  'redoc',
  'openapi.json',
  'mcp',
  'a2a',
  'agui',
  'status',
])

/** A bounded metrics label for a canonical path: `/agents`, `/sessions`, `/` or `other`. */
export function routeFamily(path: string): string {
  if (path === '/') return '/'
  const end = path.indexOf('/', 1)
  const first = end === -1 ? path.slice(1) : path.slice(1, end)
  return FAMILIES.has(first) ? `/${first}` : 'other'
}
