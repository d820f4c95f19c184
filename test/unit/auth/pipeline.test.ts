/**
 * AuthPipeline without sockets: which verifier sees a credential, in which order (AUTH-3), what
 * the public routes skip, what an open instance ignores, and that a failure never falls through.
 */
import t from 'tap'
import type { Credential } from '../../../src/auth/credential.js'
import { ExcludedRoutes } from '../../../src/auth/excluded-routes.js'
import { AuthPipeline, type DecideOptions } from '../../../src/auth/pipeline.js'
import { admitted } from '../../../src/auth/decision.js'
import { NOT_RESPONSIBLE, type Verifier } from '../../../src/auth/verifier.js'
import { NO_CREDENTIAL_SOURCE, summarizeAuthMode } from '../../../src/config/auth-mode.js'
import { GatewayError } from '../../../src/errors.js'
import type { InboundRequest } from '../../../src/inbound/inbound-request.js'
import { Authorizer } from '../../../src/policy/authorizer.js'
import { Grants } from '../../../src/policy/grants.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import { ANONYMOUS, type Principal } from '../../../src/principal.js'
import type { ReasonFor } from '../../../src/reasons.js'
import { inboundRequest } from '../../helpers/inbound.js'
import { SECURITY_KEY_PRINCIPAL, serviceAccountPrincipal } from '../../helpers/principals.js'
import { authConfig, gatewayErrorOf } from './helpers.js'

const ADMIN = 'agent_os:admin'
const SERVICE_TOKEN = 'svc_pat_0123456789'
const SCHEDULER: Principal = {
  kind: 'scheduler',
  authenticated: true,
  userId: '__scheduler__',
  sessionId: null,
  scopes: [ADMIN],
  authorizationEnabled: false,
  expiresAt: null,
}
const JWT_USER: Principal = {
  kind: 'jwt',
  authenticated: true,
  userId: 'alice',
  sessionId: null,
  scopes: [ADMIN],
  authorizationEnabled: true,
  expiresAt: null,
}

type Behaviour = Principal | typeof NOT_RESPONSIBLE | GatewayError

/** A verifier that records the tokens it was asked about and answers as told. */
function verifier(kind: Verifier['kind'], answer: (token: string) => Behaviour) {
  const seen: string[] = []
  const fake: Verifier & { seen: string[] } = {
    kind,
    seen,
    async verify(credential: Credential) {
      seen.push(credential.token)
      const result = answer(credential.token)
      if (result instanceof GatewayError) throw result
      return result
    },
  }
  return fake
}

const refused = (reason: ReasonFor<'TOKEN_INVALID'>) =>
  new GatewayError('TOKEN_INVALID', 'Invalid token', { reason })

function pipeline(
  auth: Record<string, unknown>,
  verifiers: {
    serviceAccounts?: Verifier
    scheduler?: Verifier
    jwt?: Verifier
    securityKey?: Verifier
  },
) {
  const config = authConfig(auth)
  const built = new AuthPipeline({
    mode: summarizeAuthMode(config),
    credentials: config,
    excluded: new ExcludedRoutes(['/health', '/slack/**']),
    catalogue: testCatalogue(),
    authorizer: new Authorizer({
      grants: new Grants(ADMIN),
      denyUnmapped: false,
      userIsolation: false,
    }),
    serviceAccounts: verifiers.serviceAccounts,
    scheduler: verifiers.scheduler,
    jwt: verifiers.jwt,
    securityKey: verifiers.securityKey,
  })
  // A denied decision's refusal is what HTTP answers with; thrown here as the exchange throws it.
  return {
    decide: async (request: InboundRequest, options?: DecideOptions) =>
      admitted(await built.decide(request, options)),
  }
}

const JWT_MODE = { verification_keys: ['k'] }
const KEY_MODE = { security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' }

function request(token: string | undefined, overrides: Partial<InboundRequest> = {}) {
  return inboundRequest({
    path: '/sessions',
    rawHeaders: token === undefined ? [] : ['Authorization', `Bearer ${token}`],
    ...overrides,
  })
}

void t.test('a svc_pat_ token goes to the service-account verifier and nowhere else', async (t) => {
  const serviceAccounts = verifier('service_account', () =>
    serviceAccountPrincipal('ci', ['config:read']),
  )
  const scheduler = verifier('scheduler', () => NOT_RESPONSIBLE)
  const jwt = verifier('jwt', () => JWT_USER)
  const decided = await pipeline(JWT_MODE, { serviceAccounts, scheduler, jwt }).decide(
    request(SERVICE_TOKEN, { path: '/config' }),
  )
  t.equal(decided.principal.userId, 'sa:ci')
  t.same(serviceAccounts.seen, [SERVICE_TOKEN])
  t.same(scheduler.seen, [], 'the scheduler never saw it')
  t.same(jwt.seen, [], 'the JWT verifier never saw it')
})

void t.test(
  'the scheduler is asked before the JWT verifier, which gets what it declines',
  async (t) => {
    const scheduler = verifier('scheduler', (token) =>
      token === 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' ? SCHEDULER : NOT_RESPONSIBLE,
    )
    const jwt = verifier('jwt', () => JWT_USER)
    const gate = pipeline(
      { ...JWT_MODE, internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' },
      { scheduler, jwt },
    )
    t.equal(
      (await gate.decide(request('itok-scheduler-3e9a7c1f5b2d8e4a6c0f', { path: '/agents' })))
        .principal.kind,
      'scheduler',
    )
    t.same(jwt.seen, [], 'the scheduler token stops at the scheduler')
    t.equal((await gate.decide(request('a.b.c'))).principal.kind, 'jwt')
    t.same(
      scheduler.seen,
      ['itok-scheduler-3e9a7c1f5b2d8e4a6c0f', 'a.b.c'],
      'every non-service token is offered to it first',
    )
    t.same(jwt.seen, ['a.b.c'])
  },
)

void t.test('a failure never falls through to another verifier', async (t) => {
  const scheduler = verifier('scheduler', () => refused('scheduler.websocket'))
  const jwt = verifier('jwt', () => JWT_USER)
  const gate = pipeline(
    { ...JWT_MODE, internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' },
    { scheduler, jwt },
  )
  t.match(await gatewayErrorOf(() => gate.decide(request('itok-scheduler-3e9a7c1f5b2d8e4a6c0f'))), {
    reason: 'scheduler.websocket',
  })
  t.same(jwt.seen, [], 'the JWT verifier was not tried after the scheduler failed')

  const failingAccounts = verifier('service_account', () => refused('service_account.unknown'))
  const securityKey = verifier('security_key', () => SECURITY_KEY_PRINCIPAL)
  const keyed = pipeline(KEY_MODE, { serviceAccounts: failingAccounts, securityKey })
  t.match(await gatewayErrorOf(() => keyed.decide(request(SERVICE_TOKEN))), {
    reason: 'service_account.unknown',
  })
  t.same(securityKey.seen, [], 'the security key was not tried after a bad service token')
})

void t.test('security-key mode: the key verifier when no JWT source exists', async (t) => {
  const securityKey = verifier('security_key', () => SECURITY_KEY_PRINCIPAL)
  const decided = await pipeline(KEY_MODE, { securityKey }).decide(
    request('root-key-5f0c8e2a9b7d4c1e6a3f8b0d'),
  )
  t.equal(decided.principal.kind, 'security_key')
  t.same(securityKey.seen, ['root-key-5f0c8e2a9b7d4c1e6a3f8b0d'])
})

void t.test('a verifier that declines a credential makes it an invalid one (401)', async (t) => {
  const jwt = verifier('jwt', () => NOT_RESPONSIBLE)
  t.match(await gatewayErrorOf(() => pipeline(JWT_MODE, { jwt }).decide(request('x'))), {
    status: 401,
    reason: 'credential.unsupported',
  })
})

void t.test('no credential: 401 in the wording of the mode', async (t) => {
  const jwt = verifier('jwt', () => JWT_USER)
  t.match(await gatewayErrorOf(() => pipeline(JWT_MODE, { jwt }).decide(request(undefined))), {
    status: 401,
    detail: 'Authorization header missing',
  })
  const securityKey = verifier('security_key', () => SECURITY_KEY_PRINCIPAL)
  t.match(
    await gatewayErrorOf(() => pipeline(KEY_MODE, { securityKey }).decide(request(undefined))),
    { status: 401, detail: 'Authorization header required' },
  )
  t.same([...jwt.seen, ...securityKey.seen], [])
})

void t.test('public requests look at no credential at all', async (t) => {
  const jwt = verifier('jwt', () => JWT_USER)
  const gate = pipeline(JWT_MODE, { jwt })
  for (const overrides of [
    { path: '/health' },
    { path: '/slack/events' },
    { method: 'OPTIONS', path: '/agents' },
  ]) {
    const decided = await gate.decide(request('garbage', overrides))
    t.equal(decided.principal, ANONYMOUS, JSON.stringify(overrides))
    t.equal(decided.outcome, 'public')
    t.equal(decided.authorization, undefined, 'never authorized')
  }
  t.same(jwt.seen, [])
  const upgrade = request(undefined, { method: 'OPTIONS', path: '/agents', transport: 'websocket' })
  t.match(
    await gatewayErrorOf(() => gate.decide(upgrade)),
    { status: 401 },
    'no WebSocket preflight',
  )
})

void t.test(
  'an open instance: anonymous callers pass; only service tokens are looked at',
  async (t) => {
    const serviceAccounts = verifier('service_account', (token) =>
      !token.startsWith('svc_pat_')
        ? NOT_RESPONSIBLE
        : token === SERVICE_TOKEN
          ? serviceAccountPrincipal('ci', ['sessions:read'])
          : refused('service_account.unknown'),
    )
    const gate = pipeline({ open: true }, { serviceAccounts })
    t.equal((await gate.decide(request(undefined))).principal, ANONYMOUS)
    t.equal((await gate.decide(request('a.b.c'))).principal, ANONYMOUS, 'other tokens are ignored')
    t.equal(
      (await gate.decide(request('svc_pat_unknown'))).principal,
      ANONYMOUS,
      'an unverifiable service token is ignored',
    )
    t.same(
      serviceAccounts.seen,
      ['a.b.c', 'svc_pat_unknown'],
      'the chain of an open instance is the service-account verifier alone, which declines other tokens',
    )
    const verified = await gate.decide(request(SERVICE_TOKEN))
    t.equal(verified.principal.userId, 'sa:ci', "a verified token's identity applies")
    t.match(
      await gatewayErrorOf(() => gate.decide(request(SERVICE_TOKEN, { path: '/agents' }))),
      { status: 403 },
      'and its scopes too',
    )
  },
)

void t.test('service tokens without service accounts: 401 unless open', async (t) => {
  const jwt = verifier('jwt', () => JWT_USER)
  t.match(await gatewayErrorOf(() => pipeline(JWT_MODE, { jwt }).decide(request(SERVICE_TOKEN))), {
    status: 401,
    reason: 'service_account.disabled',
  })
  t.same(jwt.seen, [], 'not handed to the JWT verifier')
})

void t.test('an explicit credential (subprotocol, frame) replaces extraction', async (t) => {
  const jwt = verifier('jwt', () => JWT_USER)
  const gate = pipeline(JWT_MODE, { jwt })
  await gate.decide(request('from-header'), {
    credential: { token: 'from-subprotocol', source: 'subprotocol' },
  })
  t.same(jwt.seen, ['from-subprotocol'])
  t.match(
    await gatewayErrorOf(() => gate.decide(request('from-header'), { credential: null })),
    { status: 401 },
    'null: no credential',
  )
})

void t.test('a set of verifiers that cannot implement the mode is refused', async (t) => {
  t.throws(() => pipeline(JWT_MODE, {}), /JWT source is configured/)
  t.throws(() => pipeline(KEY_MODE, {}), /security-key mode/)
  t.throws(() => pipeline({ open: true }, {}), /at least one credential source/)
  t.throws(
    () => pipeline({}, { serviceAccounts: verifier('service_account', () => JWT_USER) }),
    { message: NO_CREDENTIAL_SOURCE },
    'no JWT source, no key and no auth.open: never open by accident',
  )
})
