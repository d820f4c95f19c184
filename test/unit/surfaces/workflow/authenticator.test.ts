import t from 'tap'
import { Grants } from '../../../../src/policy/grants.js'
import type { Credential } from '../../../../src/auth/credential.js'
import { ExcludedRoutes } from '../../../../src/auth/excluded-routes.js'
import { inboundRequest } from '../../../helpers/inbound.js'
import type { InboundRequest } from '../../../../src/inbound/inbound-request.js'
import { AuthPipeline } from '../../../../src/auth/pipeline.js'
import { ANONYMOUS, type Principal } from '../../../../src/principal.js'
import { NOT_RESPONSIBLE, type Verifier } from '../../../../src/auth/verifier.js'
import { Authorizer } from '../../../../src/policy/authorizer.js'
import { testCatalogue } from '../../../helpers/catalogue.js'
import { invalidTokenError } from '../../../../src/service-accounts/verification-errors.js'
import { WorkflowAuthenticator } from '../../../../src/surfaces/workflow/authenticator.js'
import { GENERIC_AUTHENTICATED } from '../../../../src/surfaces/workflow/frames.js'
import { SecurityKeyVerifier } from '../../../../src/auth/security-key-verifier.js'
import { authConfig, testLogger } from '../../auth/helpers.js'
import { ADMIN, servicePrincipal } from '../helpers.js'

const INBOUND: InboundRequest = inboundRequest({ path: '/workflows/ws', transport: 'websocket' })

const VALID = 'svc_pat_valid'
const serviceAccounts: Verifier = {
  kind: 'service_account',
  async verify(credential: Credential): Promise<Principal | typeof NOT_RESPONSIBLE> {
    if (!credential.token.startsWith('svc_pat_')) return NOT_RESPONSIBLE
    if (credential.token === VALID) return servicePrincipal('bot', ['workflows:run'])
    throw invalidTokenError('unknown')
  },
}
const scheduler: Verifier = {
  kind: 'scheduler',
  async verify(credential: Credential): Promise<Principal | typeof NOT_RESPONSIBLE> {
    if (credential.token !== 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f') return NOT_RESPONSIBLE
    return {
      kind: 'scheduler',
      authenticated: true,
      userId: '__scheduler__',
      sessionId: null,
      scopes: ['workflows:run'],
      authorizationEnabled: false,
      expiresAt: null,
    }
  },
}

function openAuthenticator(verifier: Verifier): WorkflowAuthenticator {
  const pipeline = new AuthPipeline({
    mode: { mode: 'none', jwtConfigured: false, authorizationEnabled: false, open: true },
    credentials: { token_source: 'header', token_header_key: 'Authorization', cookie_name: 'c' },
    excluded: new ExcludedRoutes([]),
    catalogue: testCatalogue(),
    authorizer: new Authorizer({
      grants: new Grants(ADMIN),
      denyUnmapped: false,
      userIsolation: false,
    }),
    serviceAccounts: verifier,
    scheduler,
    jwt: undefined,
    securityKey: undefined,
  })
  return new WorkflowAuthenticator({
    pipeline,
    jwtConfigured: false,
    logger: testLogger().logger,
  })
}

const message = (token: string): Credential => ({ token, source: 'message' })

void t.test('open: an unverifiable PAT is reported, where REST ignores it', async (t) => {
  const authenticator = openAuthenticator(serviceAccounts)
  t.same(await authenticator.authenticate(message('svc_pat_bogus'), INBOUND), {
    ok: false,
    frame: { event: 'auth_error', error: 'Invalid or expired service account token' },
  })
  const valid = await authenticator.authenticate(message(VALID), INBOUND)
  t.match(valid, { ok: true, principal: { userId: 'sa:bot' } })
  t.same(valid.ok ? valid.frames.length : 0, 2)
  t.same(
    await authenticator.authenticate(message('anything'), INBOUND),
    { ok: true, principal: ANONYMOUS, frames: [GENERIC_AUTHENTICATED] },
    'any other token: the generic frame only',
  )
  t.same(
    await authenticator.authenticate(message('itok-scheduler-3e9a7c1f5b2d8e4a6c0f'), INBOUND),
    { ok: true, principal: ANONYMOUS, frames: [GENERIC_AUTHENTICATED] },
    'open: the pipeline ignores the scheduler token too',
  )
})

void t.test(
  'the scheduler token is no WebSocket credential; the key answers generically',
  async (t) => {
    const pipeline = new AuthPipeline({
      mode: {
        mode: 'security_key',
        jwtConfigured: false,
        authorizationEnabled: false,
        open: false,
      },
      credentials: { token_source: 'header', token_header_key: 'Authorization', cookie_name: 'c' },
      excluded: new ExcludedRoutes([]),
      catalogue: testCatalogue(),
      authorizer: new Authorizer({
        grants: new Grants(ADMIN),
        denyUnmapped: false,
        userIsolation: false,
      }),
      serviceAccounts,
      scheduler,
      jwt: undefined,
      securityKey: new SecurityKeyVerifier(
        authConfig({ security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' }),
      ),
    })
    const authenticator = new WorkflowAuthenticator({
      pipeline,
      jwtConfigured: false,
      logger: testLogger().logger,
    })
    t.same(
      await authenticator.authenticate(message('itok-scheduler-3e9a7c1f5b2d8e4a6c0f'), INBOUND),
      {
        ok: false,
        frame: { event: 'auth_error', error: 'Invalid token' },
      },
    )
    t.match(
      await authenticator.authenticate(message('root-key-5f0c8e2a9b7d4c1e6a3f8b0d'), INBOUND),
      {
        ok: true,
        principal: { kind: 'security_key' },
        frames: [GENERIC_AUTHENTICATED],
      },
    )
    t.same(await authenticator.authenticate(message('svc_pat_bogus'), INBOUND), {
      ok: false,
      frame: { event: 'auth_error', error: 'Invalid or expired service account token' },
    })
  },
)
