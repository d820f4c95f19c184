/** Checklist M (179–191): `/workflows/ws` through the gateway, which terminates the protocol. */
import t from 'tap'
import {
  ADMIN,
  GENERIC,
  jConfig,
  oConfig,
  jwt,
  mint,
  now,
  sConfig,
  seed,
  stack,
  withDatabase,
  type JsonWs,
} from './helpers.js'

const CONNECTED_AUTH = {
  event: 'connected',
  message: 'Connected to AgentOS. Please authenticate to continue.',
  requires_auth: true,
}
const INVALID_PAT = { event: 'auth_error', error: 'Invalid or expired service account token' }

async function connected(ws: JsonWs): Promise<JsonWs> {
  await ws.next('the connected frame')
  return ws
}

// One gateway per fixture, shared by the lines that use it (an embedded store takes seconds).
const DATABASE = withDatabase(t)
// Valid tokens are never throttled, so a low limit leaves the other lines alone.
const S = await stack(
  t,
  sConfig({ ...DATABASE, service_accounts: { enabled: true, max_failed_lookups: 2 } }),
)
const O = await stack(t, oConfig(withDatabase(t)))
const J = await stack(t, jConfig({}, withDatabase(t)))
const JI = await stack(t, jConfig({ user_isolation: true }))

void t.test('179 S: the first frame says authentication is required', async (t) => {
  S.runtime.clear()
  const ws = await S.ws()
  t.same(await ws.next(), CONNECTED_AUTH)
  t.equal(S.runtime.wsConnections.length, 0, 'no upstream connection before authentication')
})

void t.test('180 O: requires_auth false; ping answered without authenticating', async (t) => {
  const ws = await O.ws()
  t.same(await ws.next(), {
    event: 'connected',
    message: 'Connected to AgentOS.',
    requires_auth: false,
  })
  t.same(await ws.ask({ action: 'ping' }), { event: 'pong' })
})

void t.test('181 ping before authenticating: auth_required, wording per mode', async (t) => {
  const key = await connected(await S.ws())
  t.same(await key.ask({ action: 'ping' }), {
    event: 'auth_required',
    error: 'Authentication required. Send authenticate action with valid bearer token.',
  })
  t.same(
    await key.ask({ action: 'start-workflow', workflow_id: 'w1' }),
    {
      event: 'auth_required',
      error: 'Authentication required. Send authenticate action with valid bearer token.',
    },
    'any other action too',
  )
  const ws = await connected(await J.ws())
  t.same(await ws.ask({ action: 'ping' }), {
    event: 'auth_required',
    error: 'Authentication required. Send authenticate action with valid JWT.',
  })
})

void t.test('182 authenticate without a token: Token is required', async (t) => {
  const ws = await connected(await S.ws())
  t.same(await ws.ask({ action: 'authenticate' }), {
    event: 'auth_error',
    error: 'Token is required',
  })
  t.same(await ws.ask({ action: 'authenticate', token: '' }), {
    event: 'auth_error',
    error: 'Token is required',
  })
})

void t.test(
  '183 S: the key gives one authenticated frame; a wrong key Invalid token',
  async (t) => {
    const ws = await connected(await S.ws())
    t.same(await ws.ask({ action: 'authenticate', token: 'wrong' }), {
      event: 'auth_error',
      error: 'Invalid token',
    })
    t.same(
      await ws.ask({ action: 'authenticate', token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' }),
      GENERIC,
    )
    t.same(await ws.ask({ action: 'ping' }), { event: 'pong' }, 'and no second frame')
  },
)

void t.test('184 S: a valid PAT gives the generic then the service-account frame', async (t) => {
  const { token } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'robot')
  const ws = await connected(await S.ws())
  t.same(await ws.ask({ action: 'authenticate', token }), GENERIC)
  t.same(await ws.next(), {
    event: 'authenticated',
    message: 'Service account authentication successful.',
    user_id: 'sa:robot',
  })
})

void t.test('185 a bogus PAT (O) or a revoked one (J): Invalid or expired…', async (t) => {
  const open = await connected(await O.ws())
  t.same(await open.ask({ action: 'authenticate', token: 'svc_pat_invalid' }), INVALID_PAT, 'O')

  const admin = await jwt([ADMIN], { sub: 'root' })
  const { token, id } = await mint(J, admin, 'gone')
  t.equal((await J.call('DELETE', `/service-accounts/${id}`, { token: admin })).status, 204)
  const ws = await connected(await J.ws())
  t.same(await ws.ask({ action: 'authenticate', token }), INVALID_PAT, 'J, revoked')
})

void t.test(
  '184 O: a valid PAT authenticates and its scopes apply on an open instance',
  async (t) => {
    const { token } = await seed(O, 'open-reader', ['sessions:read'])
    const ws = await connected(await O.ws())
    t.same(await ws.ask({ action: 'authenticate', token }), GENERIC)
    t.match(await ws.next(), { user_id: 'sa:open-reader' })
    t.same(await ws.ask({ action: 'start-workflow', workflow_id: 'w1' }), {
      event: 'error',
      error: 'Insufficient permissions to run this workflow',
    })
  },
)

void t.test('186 PAT(sessions:read) start-workflow: refused, upstream never sees it', async (t) => {
  const { token } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'reader', ['sessions:read'])
  S.runtime.clear()
  const ws = await connected(await S.ws())
  ws.send({ action: 'authenticate', token })
  await ws.next()
  await ws.next()
  t.same(await ws.ask({ action: 'start-workflow', workflow_id: 'wf', message: 'go' }), {
    event: 'error',
    error: 'Insufficient permissions to run this workflow',
  })
  t.same(await ws.ask({ action: 'ping' }), { event: 'pong' })
  t.equal(S.runtime.wsConnections.length, 0, 'the handler was not invoked')
})

void t.test('187 PATd start-workflow with user_id mallory runs as sa:<name>', async (t) => {
  const { token } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'runner')
  S.runtime.clear()
  const ws = await connected(await S.ws())
  ws.send({ action: 'authenticate', token })
  await ws.next()
  await ws.next()
  const started = await ws.ask({
    action: 'start-workflow',
    workflow_id: 'w1',
    message: 'go',
    user_id: 'mallory',
  })
  t.match(started, { event: 'WorkflowStarted', workflow_id: 'w1', user_id: 'sa:runner' })
  t.match(await ws.next(), { event: 'WorkflowCompleted', user_id: 'sa:runner' })
  const upstream = S.runtime.wsConnections[0]
  t.same(
    upstream?.received.map((frame) => JSON.parse(String(frame)) as unknown),
    [{ action: 'start-workflow', workflow_id: 'w1', message: 'go', user_id: 'sa:runner' }],
    'only the relayed action reached the upstream, pinned',
  )
  t.equal(upstream?.headers['x-auth-user-id'], 'sa:runner', 'identity headers as for HTTP')
  t.equal(upstream?.headers['x-user-id'], 'sa:runner')
})

void t.test('188 J: JWT frames and PyJWT errors', async (t) => {
  const ws = await connected(await J.ws())
  const expired = await jwt(['workflows:run'], { exp: now() - 3600 })
  t.same(await ws.ask({ action: 'authenticate', token: expired }), {
    event: 'auth_error',
    error: 'Signature has expired',
    error_type: 'expired',
  })
  t.same(await ws.ask({ action: 'authenticate', token: 'garbage' }), {
    event: 'auth_error',
    error: 'Not enough segments',
    error_type: 'invalid_token',
  })
  t.same(await ws.ask({ action: 'authenticate', token: await jwt([], { sub: 'sa:x' }) }), {
    event: 'auth_error',
    error: 'Invalid token subject',
    error_type: 'invalid_token',
  })
  t.same(await ws.ask({ action: 'authenticate', token: await jwt([], { sub: 'u1' }) }), GENERIC)
  t.same(await ws.next(), {
    event: 'authenticated',
    message: 'JWT authentication successful.',
    user_id: 'u1',
  })
})

async function jwtSocket(
  s: Awaited<ReturnType<typeof stack>>,
  scopes: string[],
  sub = 'u1',
): Promise<JsonWs> {
  const ws = await connected(await s.ws())
  ws.send({ action: 'authenticate', token: await jwt(scopes, { sub }) })
  await ws.next()
  await ws.next()
  return ws
}

void t.test('189 J: JWT(agents:read) may not reconnect or continue', async (t) => {
  const ws = await jwtSocket(J, ['agents:read'])
  t.same(await ws.ask({ action: 'reconnect', workflow_id: 'w1', run_id: 'r1' }), {
    event: 'error',
    error: 'Insufficient permissions to reconnect to this workflow',
  })
  t.same(await ws.ask({ action: 'continue-workflow', workflow_id: 'w1', run_id: 'r1' }), {
    event: 'error',
    error: 'Insufficient permissions to continue this workflow',
  })
  t.same(await ws.ask({ action: 'start-workflow', workflow_id: 'w1' }), {
    event: 'error',
    error: 'Insufficient permissions to run this workflow',
  })
  const authorizationOff = await stack(t, jConfig({ authorization: false }))
  const off = await jwtSocket(authorizationOff, ['agents:read'])
  t.same(
    await off.ask({ action: 'reconnect', workflow_id: 'w1' }),
    { event: 'error', error: 'Insufficient permissions to reconnect to this workflow' },
    'checked whatever the authorization flag',
  )
})

void t.test('190 JI: reconnect needs a workflow_id, except for admins', async (t) => {
  const ws = await jwtSocket(JI, ['workflows:run'])
  t.same(await ws.ask({ action: 'reconnect', run_id: 'r1' }), {
    event: 'error',
    error: 'workflow_id is required to reconnect to a workflow run',
  })
  t.match(
    await ws.ask({ action: 'reconnect', workflow_id: 'w1', run_id: 'r1', user_id: 'bob' }),
    { event: 'reconnected', workflow_id: 'w1', user_id: 'u1' },
    'with one it passes, user_id pinned',
  )
  const admin = await jwtSocket(JI, [ADMIN], 'root')
  t.match(
    await admin.ask({ action: 'reconnect', run_id: 'r1', user_id: 'bob' }),
    { event: 'reconnected', workflow_id: null, user_id: 'bob' },
    'an admin passes; its user_id is only a default',
  )
  t.match(await admin.ask({ action: 'reconnect', run_id: 'r2' }), {
    event: 'reconnected',
    user_id: 'root',
  })
})

void t.test('191 after authenticating, an unknown action', async (t) => {
  const ws = await connected(await S.ws())
  ws.send({ action: 'authenticate', token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' })
  await ws.next()
  t.same(await ws.ask({ action: 'dance' }), { event: 'error', error: 'Unknown action: dance' })
  t.same(await ws.ask({ nothing: true }), { event: 'error', error: 'Unknown action: None' })
})

void t.test('5.5 on the WebSocket: throttling keeps its text', async (t) => {
  const ws = await connected(await S.ws())
  const bogus = `svc_pat_${'0'.repeat(49)}`
  for (let attempt = 0; attempt < 2; attempt++) {
    t.same(await ws.ask({ action: 'authenticate', token: bogus }), INVALID_PAT)
  }
  t.same(await ws.ask({ action: 'authenticate', token: bogus }), {
    event: 'auth_error',
    error: 'Too many failed authentication attempts',
  })
})
