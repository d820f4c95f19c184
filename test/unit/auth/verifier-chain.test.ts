/**
 * The verifier chain on its own: asked in order, not responsible passes the credential on, a
 * failure stops the chain; and the pipeline builds the chain once, in AgentOS's order.
 */
import t from 'tap'
import type { Credential } from '../../../src/auth/credential.js'
import { ServiceAccountsOff, VerifierChain } from '../../../src/auth/verifier-chain.js'
import { NOT_RESPONSIBLE, type Verifier } from '../../../src/auth/verifier.js'
import { ExcludedRoutes } from '../../../src/auth/excluded-routes.js'
import { AuthPipeline } from '../../../src/auth/pipeline.js'
import { summarizeAuthMode } from '../../../src/config/auth-mode.js'
import { GatewayError } from '../../../src/errors.js'
import { Authorizer } from '../../../src/policy/authorizer.js'
import { Grants } from '../../../src/policy/grants.js'
import type { Principal } from '../../../src/principal.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import { inboundRequest } from '../../helpers/inbound.js'
import { SECURITY_KEY_PRINCIPAL, serviceAccountPrincipal } from '../../helpers/principals.js'
import { authConfig } from './helpers.js'

const REQUEST = inboundRequest({ path: '/sessions' })
const credential = (token: string): Credential => ({ token, source: 'header' })

/** A verifier that claims tokens starting with `prefix` and records every token it was offered. */
function claiming(kind: Verifier['kind'], prefix: string, answer: () => Principal) {
  const offered: string[] = []
  const fake: Verifier & { offered: string[] } = {
    kind,
    offered,
    async verify(given: Credential) {
      offered.push(given.token)
      if (!given.token.startsWith(prefix)) return NOT_RESPONSIBLE
      return answer()
    },
  }
  return fake
}

void t.test('not responsible passes the credential to the next verifier, in order', async (t) => {
  const first = claiming('service_account', 'svc_pat_', () => serviceAccountPrincipal('ci', []))
  const second = claiming('security_key', 'key-', () => SECURITY_KEY_PRINCIPAL)
  const chain = new VerifierChain([first, second])
  t.same(chain.kinds, ['service_account', 'security_key'])
  const outcome = await chain.verify(credential('key-1'), REQUEST)
  t.match(outcome, { claimedBy: 'security_key', principal: { kind: 'security_key' } })
  t.same(first.offered, ['key-1'], 'the first was asked and declined')
  t.same(await chain.verify(credential('other'), REQUEST), { claimedBy: undefined })
  t.same(second.offered, ['key-1', 'other'], 'an unclaimed credential went through every verifier')
})

void t.test('a failure stops the chain and names the verifier that failed', async (t) => {
  const unknown = new GatewayError('TOKEN_INVALID', 'Invalid token', {
    reason: 'service_account.unknown',
  })
  const next = claiming('jwt', '', () => SECURITY_KEY_PRINCIPAL)
  const failures: Record<string, Verifier> = {
    returned: { kind: 'service_account', verify: () => unknown },
    resolved: claiming('service_account', 'svc_pat_', () => unknown as unknown as Principal),
    thrown: claiming('service_account', 'svc_pat_', () => {
      throw unknown
    }),
    'thrown at once': {
      kind: 'service_account',
      verify: () => {
        throw unknown
      },
    },
  }
  for (const [how, failing] of Object.entries(failures)) {
    const outcome = await new VerifierChain([failing, next]).verify(
      credential('svc_pat_x'),
      REQUEST,
    )
    t.same(outcome, { claimedBy: 'service_account', refusal: unknown }, how)
  }
  t.same(next.offered, [], 'never fell through')
  const broken = new TypeError('a bug')
  const crashing: Verifier = {
    kind: 'jwt',
    verify: () => {
      throw broken
    },
  }
  t.same(
    new VerifierChain([crashing]).verify(credential('eyJ'), REQUEST),
    { claimedBy: 'jwt', refusal: broken },
    'an unexpected error is a refusal too, never a pass',
  )
})

void t.test('service accounts off: svc_pat_ tokens are claimed and refused (401)', async (t) => {
  const off = new ServiceAccountsOff()
  t.equal(off.verify(credential('eyJ.a.b')), NOT_RESPONSIBLE)
  t.match(off.verify(credential('svc_pat_abc')), {
    status: 401,
    reason: 'service_account.disabled',
  })
})

const build = (auth: Record<string, unknown>, verifiers: Partial<Record<string, Verifier>>) => {
  const config = authConfig(auth)
  return new AuthPipeline({
    mode: summarizeAuthMode(config),
    credentials: config,
    excluded: new ExcludedRoutes([]),
    catalogue: testCatalogue(),
    authorizer: new Authorizer({
      grants: new Grants('agent_os:admin'),
      denyUnmapped: false,
      userIsolation: false,
    }),
    serviceAccounts: verifiers['serviceAccounts'],
    scheduler: verifiers['scheduler'],
    jwt: verifiers['jwt'],
    securityKey: verifiers['securityKey'],
  })
}

void t.test('the pipeline builds the chain once per config, in dispatch order', async (t) => {
  const jwt = claiming('jwt', '', () => SECURITY_KEY_PRINCIPAL)
  const scheduler = claiming('scheduler', 'itok', () => SECURITY_KEY_PRINCIPAL)
  const accounts = claiming('service_account', 'svc_pat_', () => SECURITY_KEY_PRINCIPAL)
  t.same(
    build({ verification_keys: ['k'] }, { serviceAccounts: accounts, scheduler, jwt }).verifiers,
    ['service_account', 'scheduler', 'jwt'],
  )
  t.same(
    build({ verification_keys: ['k'] }, { jwt }).verifiers,
    ['service_account', 'jwt'],
    'service accounts off: their tokens are still claimed first, and refused',
  )
  t.same(
    build({ open: true }, { serviceAccounts: accounts, scheduler }).verifiers,
    ['service_account'],
    'an open instance looks at service-account tokens only',
  )
})

void t.test(
  'answers at once when no verifier waits, and mixes waiting and immediate ones',
  async (t) => {
    const principal = serviceAccountPrincipal('ci', [])
    const immediate: Verifier = {
      kind: 'service_account',
      verify: (given) => (given.token.startsWith('svc_pat_') ? principal : NOT_RESPONSIBLE),
    }
    const waiting = claiming('jwt', 'eyJ', () => SECURITY_KEY_PRINCIPAL)
    const chain = new VerifierChain([immediate, waiting])
    const cached = chain.verify(credential('svc_pat_x'), REQUEST)
    t.notOk(cached instanceof Promise, 'a verifier that answers at once makes no promise')
    t.same(cached, { claimedBy: 'service_account', principal })
    const passedOn = chain.verify(credential('eyJ.x'), REQUEST)
    t.ok(passedOn instanceof Promise, 'one that waits does')
    t.same(await passedOn, { claimedBy: 'jwt', principal: SECURITY_KEY_PRINCIPAL })
    const unknown = new GatewayError('TOKEN_INVALID', 'Invalid token', {
      reason: 'service_account.unknown',
    })
    const refusing: Verifier = { kind: 'service_account', verify: () => unknown }
    const refused = new VerifierChain([refusing, waiting]).verify(credential('svc_pat_y'), REQUEST)
    t.notOk(refused instanceof Promise, 'a refusal made at once is answered at once')
    t.same(refused, { claimedBy: 'service_account', refusal: unknown }, 'as a value')
    t.same(waiting.offered, ['eyJ.x'], 'nothing after a refusal is asked')
  },
)

void t.test('a verifier that breaks the chain itself is a refusal, never a pass', async (t) => {
  const waiting = claiming('service_account', 'svc_pat_', () => SECURITY_KEY_PRINCIPAL)
  // Asked after the waiting one passed the credential on: reading its kind throws inside the
  // chain's own continuation.
  const broken = {
    get kind(): Verifier['kind'] {
      throw new TypeError('a broken verifier')
    },
    verify: () => {
      throw new TypeError('a broken verifier')
    },
  } as unknown as Verifier
  const pipeline = build({ verification_keys: ['k'] }, { serviceAccounts: waiting, jwt: broken })
  const decision = await pipeline.decide(
    inboundRequest({ path: '/sessions', rawHeaders: ['Authorization', 'Bearer eyJ.a.b'] }),
  )
  t.equal(decision.outcome, 'denied')
  t.equal(decision.principal, undefined)
})
