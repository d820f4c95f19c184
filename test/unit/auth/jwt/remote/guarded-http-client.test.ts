/**
 * The address policy where it is enforced, on every connection of a key fetch: a loopback literal
 * and a name resolving to loopback are refused without connecting unless
 * auth.jwks_allow_private_addresses allows them. (At start-up the same policy refuses the
 * configuration: test/integration/cli/config-check-matches-serve.test.ts; this guard is what
 * stops a name whose address changes after the start.)
 */
import { createServer } from 'node:http'
import t from 'tap'
import { GuardedHttpClient } from '../../../../../src/auth/jwt/remote/guarded-http-client.js'
import { KeyFetchError } from '../../../../../src/auth/jwt/remote/fetch-errors.js'

void t.test('non-public addresses are refused before connecting, unless allowed', async (t) => {
  let connections = 0
  const server = createServer((_req, res) => res.end('{"keys": []}'))
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const port = (server.address() as { port: number }).port
  const client = (allowPrivateAddresses: boolean) => {
    const http = new GuardedHttpClient({
      timeoutMs: 5_000,
      maxBytes: 10_000,
      allowHttp: true,
      allowPrivateAddresses,
      ca: undefined,
    })
    t.teardown(() => http.close())
    return http
  }

  const guarded = client(false)
  const literal = await guarded
    .get(new URL(`http://127.0.0.1:${port}/jwks`))
    .catch((error: unknown) => error)
  t.ok(literal instanceof KeyFetchError)
  t.match(literal, {
    outcome: 'blocked',
    message: /127\.0\.0\.1 is not a public address \(auth\.jwks_allow_private_addresses\)/,
  })
  const byName = await guarded
    .get(new URL(`http://localhost:${port}/jwks`))
    .catch((error: unknown) => error)
  t.match(byName, {
    outcome: 'blocked',
    message: /localhost resolves to the non-public address 127\.0\.0\.1/,
  })
  t.equal(connections, 0, 'neither connected')

  const allowed = await client(true).get(new URL(`http://localhost:${port}/jwks`))
  t.match(allowed, { status: 200, body: '{"keys": []}' })
})
