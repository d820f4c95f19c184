/**
 * Environment variables the gateway reads. Each fills a config key that the file leaves unset (a
 * value in the file wins), except JWT_VERIFICATION_KEY, which AgentOS appends to the key list
 * even when a list is given.
 */
export interface EnvBinding {
  readonly env: string
  readonly path: readonly string[]
  readonly kind: 'string' | 'number' | 'boolean' | 'append'
}

export const ENV_BINDINGS: readonly EnvBinding[] = [
  { env: 'PORTCULLIS_UPSTREAM_URL', path: ['upstream', 'url'], kind: 'string' },
  { env: 'PORTCULLIS_AGENTOS_VERSION', path: ['upstream', 'agentos_version'], kind: 'string' },
  { env: 'PORTCULLIS_PORT', path: ['server', 'port'], kind: 'number' },
  { env: 'PORTCULLIS_ADMIN_PORT', path: ['server', 'admin_port'], kind: 'number' },
  { env: 'PORTCULLIS_ADMIN_HOST', path: ['server', 'admin_host'], kind: 'string' },
  { env: 'JWT_VERIFICATION_KEY', path: ['auth', 'verification_keys'], kind: 'append' },
  { env: 'JWT_JWKS_FILE', path: ['auth', 'jwks_file'], kind: 'string' },
  { env: 'OS_SECURITY_KEY', path: ['auth', 'security_key'], kind: 'string' },
  { env: 'PORTCULLIS_AUTH_OPEN', path: ['auth', 'open'], kind: 'boolean' },
  {
    env: 'SERVICE_ACCOUNT_CACHE_TTL_SECONDS',
    path: ['service_accounts', 'cache_ttl_seconds'],
    kind: 'number',
  },
  { env: 'DATABASE_URL', path: ['database', 'url'], kind: 'string' },
  { env: 'PORTCULLIS_DATA_DIR', path: ['database', 'data_dir'], kind: 'string' },
]

type Tree = Record<string, unknown>

/** A config key filled from the environment, so that errors can name the variable. */
export interface EnvOrigin {
  readonly env: string
  /** The value as it may be shown in an error (absent for secrets). */
  readonly shown: string | undefined
}

export interface AppliedEnvironment {
  readonly tree: Tree
  /** Dotted key path → the variable that filled it. */
  readonly origins: ReadonlyMap<string, EnvOrigin>
  /** Variables whose value cannot fill their key at all (a port that is not a number). */
  readonly issues: readonly string[]
}

// Variables holding secrets: never repeated in an error message.
const SECRET_VARIABLES = new Set(['JWT_VERIFICATION_KEY', 'OS_SECURITY_KEY', 'DATABASE_URL'])

/** Returns a copy of the raw YAML tree with the environment bindings applied. */
export function applyEnvironment(
  raw: Tree,
  env: Readonly<Record<string, string | undefined>>,
): Tree {
  return applyEnvironmentWithOrigins(raw, env).tree
}

/** Like applyEnvironment, also saying which keys came from which variable. */
export function applyEnvironmentWithOrigins(
  raw: Tree,
  env: Readonly<Record<string, string | undefined>>,
): AppliedEnvironment {
  const tree = structuredClone(raw)
  const origins = new Map<string, EnvOrigin>()
  const issues: string[] = []
  for (const binding of ENV_BINDINGS) {
    const value = env[binding.env]
    if (value === undefined || value === '') continue
    const parent = ensureParent(tree, binding.path)
    if (parent === undefined) continue // the file has a non-object there; the schema reports it
    const key = binding.path[binding.path.length - 1] as string
    const dotted = binding.path.join('.')
    if (binding.kind === 'append') {
      const current = parent[key]
      if (current === undefined || current === null) parent[key] = [value]
      else if (Array.isArray(current) && !current.includes(value))
        parent[key] = [...(current as unknown[]), value]
      continue
    }
    if (parent[key] !== undefined && parent[key] !== null) continue
    const shown = SECRET_VARIABLES.has(binding.env) ? undefined : withoutUserInfo(value)
    if (binding.kind === 'number' && !/^\d+(\.\d+)?$/.test(value)) {
      issues.push(
        `${binding.env}=${JSON.stringify(shown)} (environment variable for ${dotted}): must be a non-negative number`,
      )
      continue
    }
    if (binding.kind === 'boolean' && value !== 'true' && value !== 'false') {
      issues.push(
        `${binding.env}=${JSON.stringify(shown)} (environment variable for ${dotted}): must be true or false`,
      )
      continue
    }
    parent[key] =
      binding.kind === 'number'
        ? Number(value)
        : binding.kind === 'boolean'
          ? value === 'true'
          : value
    origins.set(dotted, { env: binding.env, shown })
  }
  return { tree, origins, issues }
}

/** A URL's `user:password@` is removed before the value is shown. */
function withoutUserInfo(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
}

function ensureParent(tree: Tree, path: readonly string[]): Tree | undefined {
  let node: Tree = tree
  for (const segment of path.slice(0, -1)) {
    const next = node[segment]
    if (next === undefined || next === null) {
      const created: Tree = {}
      node[segment] = created
      node = created
    } else if (typeof next === 'object' && !Array.isArray(next)) {
      node = next as Tree
    } else {
      return undefined
    }
  }
  return node
}
