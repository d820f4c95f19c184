/**
 * Properties of scope parsing and matching: grants are monotonic (adding scopes never removes
 * access, nor ids from a listing), wildcards in the family or action position (`agents:*`,
 * `*:read`) never grant anything, the admin scope works by exact match only, and the scopes
 * claim is read as JWT-10 says (a list's strings; a string as one scope; else nothing).
 */
import fc from 'fast-check'
import type { Principal } from '../../../src/principal.js'
import { scopesFromClaim } from '../../../src/auth/jwt/jwt-claims.js'
import { GatewayError } from '../../../src/errors.js'
import type { Authorization } from '../../../src/policy/authorizer.js'
import { CatalogueAuthorizer } from '../../helpers/catalogue.js'

export const ADMIN = 'os:admin'
const FAMILIES = [
  'agents',
  'teams',
  'workflows',
  'sessions',
  'memories',
  'knowledge',
  'config',
  'system',
  'traces',
  'schedules',
  'service_accounts',
  'evals',
  'metrics',
]
const ACTIONS = ['read', 'write', 'run', 'delete']
const IDS = ['a1', 'a2', 't1', 'w1', 'ws', 's1']

const family = fc.constantFrom(...FAMILIES)
const action = fc.constantFrom(...ACTIONS)
const id = fc.constantFrom(...IDS, '*')
/** Scopes that may grant something: global, per-resource and per-resource wildcards. */
export const grantingScope = fc.oneof(
  fc.tuple(family, action).map(([f, a]) => `${f}:${a}`),
  fc.tuple(family, id, action).map(([f, i, a]) => `${f}:${i}:${a}`),
)
/** Scopes that must never grant: action or family wildcards, admin look-alikes, junk. */
export const inertScope = fc.oneof(
  family.map((f) => `${f}:*`),
  action.map((a) => `*:${a}`),
  fc.constantFrom(
    '*:*',
    '*',
    '*:*:*',
    'OS:ADMIN',
    'os:admin ',
    ' os:admin',
    'os:admin:x',
    'os:*',
    '*:admin',
    'os',
    'admin',
    'agent_os:admin',
    '',
  ),
  fc.tuple(family, id).map(([f, i]) => `${f}:${i}:*`),
  fc
    .string({ unit: 'grapheme-ascii', maxLength: 8 })
    .filter((s) => s !== ADMIN && s.split(':').length !== 2 && s.split(':').length !== 3),
)
const scopes = fc.array(grantingScope, { maxLength: 6 })

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']
const segment = fc.constantFrom(
  ...IDS,
  'runs',
  'r1',
  'cancel',
  'continue',
  'resume',
  'sessions',
  'fork',
  'checkpoints',
  'x',
)
export const request = fc.record({
  method: fc.constantFrom(...METHODS),
  path: fc
    .tuple(
      fc.constantFrom(
        ...FAMILIES,
        'a2a',
        'echo',
        'service-accounts',
        'optimize-memories',
        'user_memory_stats',
      ),
      fc.array(segment, { maxLength: 4 }),
    )
    .map(([first, rest]) => `/${[first, ...rest].join('/')}`),
})

const authorizers = [false, true].map(
  (denyUnmapped) => new CatalogueAuthorizer({ adminScope: ADMIN, denyUnmapped }),
)

export function principal(
  granted: readonly string[],
  kind: 'jwt' | 'service_account' = 'jwt',
): Principal {
  return {
    kind,
    authenticated: true,
    userId: 'alice',
    sessionId: null,
    scopes: granted,
    authorizationEnabled: true,
    expiresAt: null,
  }
}

/** The decision: the ids a listing may show ('all' when unfiltered), or 'denied'. */
function decide(
  authorizer: CatalogueAuthorizer,
  granted: readonly string[],
  method: string,
  path: string,
  kind: 'jwt' | 'service_account',
): 'denied' | ReadonlySet<string> | 'all' {
  let authorization: Authorization
  try {
    authorization = authorizer.authorize(principal(granted, kind), method, path)
  } catch (error) {
    if (error instanceof GatewayError && error.status === 403) return 'denied'
    throw error
  }
  return authorization.accessibleIds ?? 'all'
}

const show = (decision: ReturnType<typeof decide>): string =>
  typeof decision === 'string' ? decision : JSON.stringify([...decision])

/** `more` allows at least what `less` allows. */
function atLeast(more: ReturnType<typeof decide>, less: ReturnType<typeof decide>): boolean {
  if (less === 'denied') return true
  if (more === 'denied') return false
  if (more === 'all') return true
  if (less === 'all') return false
  return [...less].every((item) => more.has(item))
}

const same = (a: ReturnType<typeof decide>, b: ReturnType<typeof decide>) =>
  atLeast(a, b) && atLeast(b, a)
const kind = fc.constantFrom('jwt' as const, 'service_account' as const)

export const scopeProperties = {
  'grants are monotonic: adding scopes never removes access': fc.property(
    scopes,
    scopes,
    request,
    kind,
    (held, extra, { method, path }, who) => {
      for (const authorizer of authorizers) {
        const before = decide(authorizer, held, method, path, who)
        const after = decide(authorizer, [...held, ...extra], method, path, who)
        if (!atLeast(after, before))
          throw new Error(`${method} ${path}: ${show(before)} became ${show(after)}`)
      }
    },
  ),
  'wildcard actions and families, and admin look-alikes, never grant': fc.property(
    scopes,
    fc.array(inertScope, { minLength: 1, maxLength: 4 }),
    request,
    kind,
    (held, inert, { method, path }, who) => {
      for (const authorizer of authorizers) {
        const before = decide(authorizer, held, method, path, who)
        const after = decide(authorizer, [...held, ...inert], method, path, who)
        if (!same(after, before))
          throw new Error(`${JSON.stringify(inert)} changed ${method} ${path}`)
      }
    },
  ),
  'the exact admin scope allows every mapped route, unfiltered': fc.property(
    scopes,
    request,
    kind,
    (held, { method, path }, who) => {
      const decision = decide(
        authorizers[0] as CatalogueAuthorizer,
        [...held, ADMIN],
        method,
        path,
        who,
      )
      if (decision !== 'all') throw new Error(`admin got ${show(decision)} on ${method} ${path}`)
    },
  ),
  'the scopes claim: a list gives its strings, a string one scope, anything else none': fc.property(
    fc.jsonValue(),
    (value) => {
      const read = scopesFromClaim(value)
      const expected =
        typeof value === 'string'
          ? [value]
          : Array.isArray(value)
            ? value.filter((item) => typeof item === 'string')
            : []
      if (JSON.stringify(read) !== JSON.stringify(expected))
        throw new Error(`read ${JSON.stringify(read)}`)
    },
  ),
}
