/** Every scenario of `npm run bench`, and how `--only` selects them. Pure. */

export type SystemKey =
  | 'upstream'
  | 'node-floor'
  | 'koa-floor'
  | 'nginx'
  | 'haproxy'
  | 'haproxy-jwt'
  | 'fastify-rs256'
  | 'gw-main'
  | 'gw-log'
  | 'gw-rs256'
  | 'gw-es256'
  | 'gw-hs256'
  | 'gw-pg'

export type CredentialKey =
  | 'none'
  | 'sa-main'
  | 'sa-log'
  | 'sa-pg'
  | 'sa-unknown'
  | 'security-key'
  | 'rs256-same'
  | 'rs256-fresh'
  | 'es256-same'
  | 'es256-fresh'
  | 'hs256-same'
  | 'hs256-fresh'

export interface ThroughputScenario {
  readonly id: string
  readonly label: string
  readonly system: SystemKey
  readonly path: string
  readonly credential: CredentialKey
  /** The status of every answer: 200, or the answer the gateway gives itself. */
  readonly expectStatus: number
  /** The gateway's `logging.access_log`, set (by a reload) before each measurement; else as started. */
  readonly accessLog?: boolean
}

export const AUTH_PATH = '/agents/bench-agent'
export const EXCLUDED_PATH = '/health'
/** Answered by bench/upstream/koa-proxy.ts itself: from a thrown error, or set on the response. */
export const KOA_LOCAL_401_PATH = '/local-401'
export const KOA_LOCAL_401_SET_PATH = '/local-401-set'

const scenario = (
  id: string,
  label: string,
  system: SystemKey,
  credential: CredentialKey,
  path = AUTH_PATH,
  expectStatus = 200,
  accessLog?: boolean,
): ThroughputScenario => ({
  id,
  label,
  system,
  credential,
  path,
  expectStatus,
  ...(accessLog === undefined ? {} : { accessLog }),
})

/** Measured in this order, round after round. */
export const THROUGHPUT_SCENARIOS: readonly ThroughputScenario[] = [
  scenario('direct', 'direct to the upstream', 'upstream', 'none'),
  scenario('nginx', 'nginx plain proxy (1 worker)', 'nginx', 'none'),
  scenario('node-floor', 'bare Node proxy (node:http + undici, no logic)', 'node-floor', 'none'),
  scenario(
    'koa-floor',
    'Koa proxy (the same relay as Koa middleware, no logic)',
    'koa-floor',
    'none',
  ),
  scenario(
    'koa-floor-401',
    'Koa, 401 from a thrown error (no upstream, no logic)',
    'koa-floor',
    'none',
    KOA_LOCAL_401_PATH,
    401,
  ),
  scenario(
    'koa-floor-401-set',
    'Koa, 401 set on the response (no throw, no upstream, no logic)',
    'koa-floor',
    'none',
    KOA_LOCAL_401_SET_PATH,
    401,
  ),
  scenario('haproxy', 'HAProxy plain proxy', 'haproxy', 'none'),
  scenario('haproxy-jwt', 'HAProxy jwt_verify RS256', 'haproxy-jwt', 'rs256-same'),
  scenario(
    'fastify-rs256-same',
    'Fastify peer (reply-from, @fastify/jwt with its cache, no logging), RS256 JWT, same token',
    'fastify-rs256',
    'rs256-same',
  ),
  scenario('pc-excluded', 'Portcullis, excluded route (/health)', 'gw-main', 'none', EXCLUDED_PATH),
  scenario('pc-sa-warm', 'Portcullis, service-account token (warm cache)', 'gw-main', 'sa-main'),
  // The access log's cost (target 6): one gateway, its log turned off and on by a configuration
  // reload before each slice, so that nothing but the log differs. Two gateways (one per setting)
  // differed by more than the log between one process and the other.
  scenario(
    'pc-sa-warm-nolog',
    'Portcullis, service-account token, access log off',
    'gw-log',
    'sa-log',
    AUTH_PATH,
    200,
    false,
  ),
  scenario(
    'pc-sa-warm-log',
    'Portcullis, service-account token, access log on (the same gateway as the row above)',
    'gw-log',
    'sa-log',
    AUTH_PATH,
    200,
    true,
  ),
  scenario('pc-security-key', 'Portcullis, security key', 'gw-main', 'security-key'),
  scenario('pc-401', 'Portcullis, no credential (401)', 'gw-main', 'none', AUTH_PATH, 401),
  scenario(
    'pc-429',
    'Portcullis, unknown svc_pat_ token, throttled address (429)',
    'gw-main',
    'sa-unknown',
    AUTH_PATH,
    429,
  ),
  scenario('pc-rs256-same', 'Portcullis, RS256 JWT, same token', 'gw-rs256', 'rs256-same'),
  scenario(
    'pc-rs256-fresh',
    'Portcullis, RS256 JWT, fresh token per request',
    'gw-rs256',
    'rs256-fresh',
  ),
  scenario('pc-es256-same', 'Portcullis, ES256 JWT, same token', 'gw-es256', 'es256-same'),
  scenario(
    'pc-es256-fresh',
    'Portcullis, ES256 JWT, fresh token per request',
    'gw-es256',
    'es256-fresh',
  ),
  scenario('pc-hs256-same', 'Portcullis, HS256 JWT, same token', 'gw-hs256', 'hs256-same'),
  scenario(
    'pc-hs256-fresh',
    'Portcullis, HS256 JWT, fresh token per request',
    'gw-hs256',
    'hs256-fresh',
  ),
  scenario(
    'pc-sa-pg-nocache',
    'Portcullis, service-account token, cache off, PostgreSQL',
    'gw-pg',
    'sa-pg',
  ),
]

/** The latency phase's open connections, the same on each path it alternates over. */
export const LATENCY_CONNECTIONS = 16

/** Runs that are not closed-loop throughput rounds. */
export const PHASES = [
  'latency',
  'flood',
  'memory',
  'revocation',
  'allocation',
  'instructions',
] as const
export type Phase = (typeof PHASES)[number]

export const ALL_IDS: readonly string[] = [...THROUGHPUT_SCENARIOS.map((s) => s.id), ...PHASES]

/**
 * The ids `--only` names: exact ids, or prefixes ending in `*` (`pc-rs256*`). Unknown names are
 * an error listing the valid ones. null selects everything.
 */
export function selectIds(
  only: readonly string[] | null,
  ids: readonly string[] = ALL_IDS,
): string[] {
  if (only === null) return [...ids]
  const selected = new Set<string>()
  for (const name of only) {
    const matches = name.endsWith('*')
      ? ids.filter((id) => id.startsWith(name.slice(0, -1)))
      : ids.filter((id) => id === name)
    if (matches.length === 0) {
      throw new Error(`unknown scenario "${name}"; valid: ${ids.join(', ')}`)
    }
    for (const id of matches) selected.add(id)
  }
  return ids.filter((id) => selected.has(id))
}

/** The systems the selected scenarios and phases need. */
export function systemsNeeded(selected: readonly string[]): Set<SystemKey> {
  const needed = new Set<SystemKey>(['upstream'])
  for (const s of THROUGHPUT_SCENARIOS) if (selected.includes(s.id)) needed.add(s.system)
  if (selected.includes('latency') || selected.includes('flood')) needed.add('gw-main')
  // The latency phase measures the Koa floor beside the gateway, at the same rate.
  if (selected.includes('latency')) needed.add('koa-floor')
  return needed
}
