/**
 * Long-lived connections end with their credential (close code 1008): revocation through the
 * API or by another replica, JWT expiry, on the workflow WebSocket and on relayed upgrades; and
 * a credential given with the upgrade counts as authenticated.
 */
import t from 'tap'
import { CREDENTIAL_ENDED_CLOSE_CODE } from '../../../src/http/connection-watch.js'
import {
  GENERIC,
  jConfig,
  jwt,
  mint,
  now,
  sConfig,
  stack,
  withDatabase,
  type JsonWs,
} from './helpers.js'

const S = await stack(t, sConfig(withDatabase(t)))
const J = await stack(
  t,
  jConfig({}, { interfaces: { workflow_websocket: { auth_timeout_seconds: 0.3 } } }),
)

async function authenticated(ws: JsonWs, token: string, frames: number): Promise<void> {
  await ws.next('the connected frame')
  ws.send({ action: 'authenticate', token })
  for (let index = 0; index < frames; index++) await ws.next('an authenticated frame')
}

void t.test('a revocation through the API closes the workflow socket (1008)', async (t) => {
  const { token, id } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'long-lived')
  const ws = await S.ws()
  await authenticated(ws, token, 2)
  t.match(await ws.ask({ action: 'start-workflow', workflow_id: 'w1', message: 'hi' }), {
    event: 'WorkflowStarted',
  })
  await ws.next('the workflow completion')
  t.equal(
    (
      await S.call('DELETE', `/service-accounts/${id}`, {
        token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
      })
    ).status,
    204,
  )
  t.same(await ws.closed(), { code: CREDENTIAL_ENDED_CLOSE_CODE, reason: 'credential revoked' })
  t.equal(CREDENTIAL_ENDED_CLOSE_CODE, 1008)
})

void t.test('a revocation by another replica (store notification) closes it too', async (t) => {
  const { token, id } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'elsewhere')
  const ws = await S.ws()
  await authenticated(ws, token, 2)
  const store = S.gateway.gateway.serviceAccounts?.store
  t.equal(await store?.revoke(id, now()), 'revoked', 'revoked straight in the database')
  t.same(await ws.closed(), { code: 1008, reason: 'credential revoked' })
  const again = await S.ws()
  await again.next()
  t.same(
    await again.ask({ action: 'authenticate', token }),
    { event: 'auth_error', error: 'Invalid or expired service account token' },
    'and the token no longer authenticates',
  )
})

void t.test('a relayed upgrade authenticated by a PAT closes at revocation', async (t) => {
  const { token, id } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'echoer')
  const ws = await S.ws({ path: '/ws/echo', protocols: ['bearer', token] })
  ws.send('hello')
  t.equal(String((await ws.client.next()).data), 'hello')
  t.equal(
    (
      await S.call('DELETE', `/service-accounts/${id}`, {
        token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
      })
    ).status,
    204,
  )
  t.same(await ws.closed(), { code: 1008, reason: 'credential revoked' })
})

void t.test('a PAT expiring in 90 days does not close the relayed socket early', async (t) => {
  const { token } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'ninety')
  const ws = await S.ws({ path: '/ws/echo', protocols: ['bearer', token] })
  await new Promise((resolve) => setTimeout(resolve, 200))
  ws.send('still here')
  t.equal(String((await ws.client.next()).data), 'still here', 'beyond the 24.8-day timer limit')
})

void t.test('a JWT closes the workflow socket when it expires', async (t) => {
  const ws = await J.ws()
  const token = await jwt(['workflows:run'], { sub: 'u1', exp: now() + 2 })
  await authenticated(ws, token, 2)
  t.match(await ws.ask({ action: 'reconnect', workflow_id: 'w1' }), { event: 'reconnected' })
  const started = Date.now()
  t.same(await ws.closed(), { code: 1008, reason: 'credential expired' })
  t.ok(Date.now() - started < 5_000, 'within the bounded wait')
})

void t.test(
  'an unauthenticated connection times out when authentication is required',
  async (t) => {
    const ws = await J.ws()
    await ws.next()
    t.same(await ws.closed(), { code: 1008, reason: 'authentication timeout' })
  },
)

void t.test('a credential with the upgrade counts as authenticated', async (t) => {
  const header = await S.ws({
    headers: { Authorization: 'Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
  })
  t.match(await header.next(), { event: 'connected', requires_auth: true })
  t.same(await header.next(), GENERIC, 'header')
  t.same(await header.ask({ action: 'ping' }), { event: 'pong' })

  const { token } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'browser')
  const sub = await S.ws({ protocols: ['bearer', token] })
  t.equal(sub.client.socket.protocol, 'bearer', 'the bearer subprotocol is selected')
  await sub.next()
  t.same(await sub.next(), GENERIC, 'subprotocol')
  t.match(await sub.next(), { user_id: 'sa:browser' })

  const bad = await S.ws({ headers: { Authorization: 'Bearer wrong' } })
  await bad.next()
  t.same(await bad.next(), { event: 'auth_error', error: 'Invalid token' }, 'a bad one is reported')
  t.same(
    await bad.ask({ action: 'authenticate', token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' }),
    GENERIC,
    'in-band still works',
  )
})

void t.test('malformed frames end the connection, as in AgentOS', async (t) => {
  const ws = await S.ws()
  await ws.next()
  ws.send('not json')
  t.same(await ws.closed(), { code: 1003, reason: 'expected a JSON object' })
})
