/**
 * CORS on `/service-accounts`, which the gateway answers itself: preflights go to the upstream as
 * every preflight does (they used to get the gateway's 405, which fails a browser's preflight),
 * and answers to an allowed Origin carry the headers AgentOS's CORS middleware adds.
 */
import t from 'tap'
import { identityHeadersSeen, sConfig, stack } from '../../conformance/fixtures.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'
import { replicaSection } from './cluster.js'

const ALLOWED = 'http://localhost:3000'

void t.test('CORS on /service-accounts', { skip: postgresSkipReason() }, async (t) => {
  const runtime = await startRuntime(t)
  const server = await startPostgres(t)
  const S = await stack(t, runtime, sConfig(replicaSection(await server.createDatabase())))

  void t.test('a CORS preflight is forwarded like every other preflight', async (t) => {
    for (const [path, method] of [
      ['/service-accounts', 'POST'],
      ['/service-accounts/some-id', 'DELETE'],
    ] as const) {
      const reply = await S.call('OPTIONS', path, {
        headers: {
          origin: ALLOWED,
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization, content-type',
        },
      })
      t.equal(reply.upstream?.method, 'OPTIONS', `${path}: the upstream's CORS layer answers`)
      t.equal(reply.upstream?.path, path)
      t.same(identityHeadersSeen(reply.upstream), [], 'no identity')
      // The demo runtime has no CORS layer (nor this route): its own 404 comes back.
      t.equal(reply.status, 404, 'the upstream’s answer, not the gateway’s 405')
    }
    const plain = await S.call('OPTIONS', '/service-accounts', { headers: { origin: ALLOWED } })
    t.equal(plain.status, 405, 'an OPTIONS that is no preflight is the gateway’s 405')
    t.equal(plain.upstream, undefined)
  })

  void t.test(
    'answers to an allowed Origin carry AgentOS’s CORS headers; a disallowed one gets none (regression: composition passes allowed_origins)',
    async (t) => {
      const call = (method: string, path: string, origin: string, json?: unknown) =>
        S.call(method, path, {
          token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
          headers: { origin },
          ...(json === undefined ? {} : { json }),
        })
      const minted = await call('POST', '/service-accounts', ALLOWED, { name: 'browser' })
      const listed = await call('GET', '/service-accounts', ALLOWED)
      const id = (minted.body as { id?: string } | undefined)?.id ?? 'missing'
      const revoked = await call('DELETE', `/service-accounts/${id}`, ALLOWED)
      for (const [label, reply, status] of [
        ['mint', minted, 201],
        ['list', listed, 200],
        ['revoke', revoked, 204],
      ] as const) {
        t.equal(reply.status, status, label)
        t.equal(reply.headers['access-control-allow-origin'], ALLOWED, `${label}: allow-origin`)
        t.equal(reply.headers['access-control-allow-credentials'], 'true')
        t.equal(reply.headers['access-control-expose-headers'], '*')
        t.match(reply.headers.vary, /Origin/)
      }
      const evil = await call('GET', '/service-accounts', 'http://evil.example')
      t.equal(evil.status, 200)
      t.same(
        Object.keys(evil.headers).filter((name) => name.startsWith('access-control-')),
        [],
        'a disallowed origin gets no CORS header',
      )
    },
  )
})
