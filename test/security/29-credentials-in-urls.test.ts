/**
 * Attack class 29 — credentials in URLs (Envoy's `access_token` query parameter, Kong
 * `key_in_query`): a leak risk, since URLs end up in logs, histories and Referer headers. No
 * credential is ever read from the query string or the userinfo of a URL, over HTTP or
 * WebSocket; and no log line of the gateway holds one, at trace level, whatever the outcome.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { jwt, refused, securedGateway, send, upgrade } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  logging: { level: 'trace' },
  auth: { internal_service_token: 'itok-in-url-0123456789abcdef0123456789' },
})
const token = await jwt(['os:admin'], { sub: 'alice' })
const secrets = [token, 'itok-in-url-0123456789abcdef0123456789']
const PARAMETERS = [
  'access_token',
  'token',
  'jwt',
  'id_token',
  'api_key',
  'apikey',
  'key',
  'auth',
  'authorization',
  'bearer',
  'Authorization',
]

void t.test('a token in the query string is never read', async (t) => {
  for (const secret of secrets) {
    for (const name of PARAMETERS) {
      for (const value of [secret, `Bearer%20${secret}`]) {
        const target = `/agents/a1?${name}=${value}`
        refused(
          t,
          await send(gateway, runtime, 'GET', target),
          401,
          'Authorization header missing',
          `${name}`,
        )
        refused(
          t,
          await upgrade(gateway, runtime, `/ws/echo?${name}=${value}`),
          401,
          undefined,
          `${name} on an upgrade`,
        )
      }
    }
  }
})

void t.test('nor in the userinfo of an absolute URL', async (t) => {
  refused(
    t,
    await send(gateway, runtime, 'GET', `http://alice:${token}@portcullis.test/agents/a1`),
    400,
  )
})

void t.test('no log line holds a credential that came in a URL', async (t) => {
  // Allowed requests too: their access-log lines name the path, never the query.
  await send(gateway, runtime, 'GET', `/health?access_token=${token}`)
  await send(gateway, runtime, 'GET', `/agents/a1?x=1&token=${token}`, [
    `Authorization: Bearer ${token}`,
  ])
  await send(gateway, runtime, 'GET', `/echo%2F..?token=${token}`)
  await send(gateway, runtime, 'GET', `/agents/${token}`)
  gateway.gateway.flushLogsForExit() // the access lines of the requests just answered too
  t.ok(gateway.logs.lines.length > 10, `${gateway.logs.lines.length} log lines`)
  for (const secret of secrets) {
    t.notOk(gateway.logs.text.includes(secret), `${secret.slice(0, 12)}… is in no log line`)
  }
  t.notOk((await gateway.metrics()).includes(token.slice(0, 20)), 'nor in /metrics')
})
