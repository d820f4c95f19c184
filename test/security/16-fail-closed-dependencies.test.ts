/**
 * Attack class 16 — fail-open when a dependency errors (Envoy CVE-2023-27488 and CVE-2024-23324
 * `failure_mode_allow`, Kong `fault_tolerant`). The service-account store down: 503 on HTTP, on a
 * relayed upgrade, in band on the workflow socket and on /service-accounts, never a pass. The JWKS
 * file unreadable or unparsable: the last good key set stays in use (fail closed with the old
 * keys, documented in SECURITY.md), never an empty or a permissive one. An A2A dispatch whose
 * component cannot be resolved: 502, never forwarded unchecked.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import t from 'tap'
import { startGateway } from '../helpers/gateway.js'
import { fixtures, publicJwk, signJwt } from '../helpers/jwt.js'
import { metricValue } from '../helpers/metrics.js'
import { startCustomUpstream, startRuntime } from '../helpers/runtime.js'
import { onSuiteLine } from '../helpers/suite-line.js'
import { WsClient } from '../helpers/websocket.js'
import { badToken, seedAccount } from '../conformance/service-accounts/harness.js'
import {
  bearer,
  identityOf,
  jwt,
  mintToken,
  refused,
  securedGateway,
  send,
  upgrade,
  wsUrl,
} from './harness.js'

const UNAVAILABLE = 'Authentication is temporarily unavailable'
const runtime = await startRuntime(t)

void t.test('the service-account store down: 503 everywhere, never a pass', async (t) => {
  const gateway = await securedGateway(t, runtime, {
    service_accounts: { enabled: true, cache_ttl_seconds: 0 },
    interfaces: { workflow_websocket: { enabled: true } },
  })
  const minted = await mintToken(gateway, 'robot')
  t.equal((await send(gateway, runtime, 'GET', '/agents/a1', [bearer(minted.token)])).status, 200)
  await gateway.gateway.serviceAccounts?.store.close()
  for (const token of [minted.token, badToken(0)]) {
    for (const path of ['/agents/a1', '/echo/x', '/mcp']) {
      refused(t, await send(gateway, runtime, 'GET', path, [bearer(token)]), 503, UNAVAILABLE, path)
    }
    refused(
      t,
      await upgrade(gateway, runtime, '/ws/echo', [bearer(token)]),
      503,
      UNAVAILABLE,
      'upgrade',
    )
    const client = await WsClient.open(t, wsUrl(gateway, '/workflows/ws'))
    await client.next()
    client.socket.send(JSON.stringify({ action: 'authenticate', token }))
    t.match(JSON.parse(String((await client.next()).data)), {
      event: 'auth_error',
      error: UNAVAILABLE,
    })
  }
  t.equal(runtime.wsConnections.length, 0, 'no upstream socket')
  const admin = await jwt(['os:admin'], { sub: 'ops' })
  const api = await send(gateway, runtime, 'GET', '/service-accounts', [bearer(admin)])
  t.equal(api.status, 503, 'the API cannot answer either')
  t.equal(api.started, 0)
})

void t.test('an open gateway with its store down: a token is ignored, not trusted', async (t) => {
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { open: true },
    service_accounts: { cache_ttl_seconds: 0 },
  })
  const minted = await seedAccount(gateway, 'robot', ['agents:read'])
  const before = await send(gateway, runtime, 'GET', '/echo/x', [bearer(minted.token)])
  t.equal(before.upstream[0]?.headers['x-auth-user-id'], 'sa:robot', 'verified while it answers')
  await gateway.gateway.serviceAccounts?.store.close()
  const sent = await send(gateway, runtime, 'GET', '/echo/x', [bearer(minted.token)])
  t.same(identityOf(sent.upstream[0]?.rawHeaders ?? []), {}, 'anonymous: no identity is made up')
})

void t.test(
  'the JWKS file unreadable: the last good keys stay, nothing else is accepted',
  async (t) => {
    const dir = t.testdir({})
    const path = `${dir}/jwks.json`
    const jwks = (pem: string, kid: string) =>
      JSON.stringify({ keys: [publicJwk(pem, { kid, alg: 'RS256' })] })
    await writeFile(path, jwks(fixtures.rsaPublicPem(), 'k1'))
    const gateway = await securedGateway(t, runtime, {
      auth: {
        verification_keys: null,
        algorithm: 'RS256',
        jwks_file: path,
        jwks_watch: false,
        jwks_reload_cooldown_seconds: 0,
      },
    })
    const sign = (key: typeof fixtures.rsaPrivate, kid: string) =>
      signJwt(
        { sub: 'alice', scopes: ['agents:read'], exp: Math.floor(Date.now() / 1000) + 600 },
        { alg: 'RS256', key: key(), kid },
      )
    const k1 = await sign(fixtures.rsaPrivate, 'k1')
    const k2 = await sign(fixtures.rsa2Private, 'k2')
    const failures = async () =>
      (await gateway.metrics())
        .split('\n')
        .filter(
          (line) =>
            line.startsWith('portcullis_jwks_reloads_total') && line.includes('result="failed"'),
        )
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0)
    t.equal(
      (await send(gateway, runtime, 'GET', '/agents/a1', [bearer(k1)])).status,
      200,
      'k1 before',
    )

    const breakages: [string, () => Promise<void>][] = [
      ['invalid JSON', () => writeFile(path, '{"keys": [')],
      ['deleted', () => rm(path)],
      [
        'a directory',
        async () => {
          await rm(path)
          await mkdir(path)
        },
      ],
    ]
    for (const [what, breakIt] of breakages) {
      await rm(path, { recursive: true, force: true })
      await writeFile(path, jwks(fixtures.rsaPublicPem(), 'k1'))
      await gateway.gateway.reload()
      const before = await failures()
      await breakIt()
      await gateway.gateway.reload()
      t.ok((await failures()) > before, `${what}: the reload is counted as failed`)
      t.equal(
        (await send(gateway, runtime, 'GET', '/agents/a1', [bearer(k1)])).status,
        200,
        `${what}: k1 still verifies`,
      )
      refused(
        t,
        await send(gateway, runtime, 'GET', '/agents/a1', [bearer(k2)]),
        401,
        undefined,
        `${what}: an unknown key does not`,
      )
      t.equal(
        metricValue(await gateway.metrics(), 'portcullis_jwks_keys'),
        1,
        `${what}: the old key set is in use`,
      )
    }
    await rm(path, { recursive: true, force: true })
    // A well-formed file is applied as it is, even with no usable key: emptying it is how an
    // operator revokes every key at once, so it must not be mistaken for a failed read.
    await writeFile(path, '{"keys": []}')
    await gateway.gateway.reload()
    refused(
      t,
      await send(gateway, runtime, 'GET', '/agents/a1', [bearer(k1)]),
      401,
      undefined,
      'emptied',
    )
    await writeFile(path, jwks(fixtures.rsa2PublicPem(), 'k2'))
    await gateway.gateway.reload()
    refused(
      t,
      await send(gateway, runtime, 'GET', '/agents/a1', [bearer(k1)]),
      401,
      undefined,
      'a removed key stops at once',
    )
    t.equal(
      (await send(gateway, runtime, 'GET', '/agents/a1', [bearer(k2)])).status,
      200,
      'the new key works',
    )
  },
)

void t.test('an unreadable JWKS file at startup: the gateway does not start', async (t) => {
  await t.rejects(
    securedGateway(t, runtime, {
      auth: {
        verification_keys: null,
        algorithm: 'RS256',
        jwks_file: `${t.testdir({})}/missing.json`,
      },
    }),
  )
})

void t.test(
  'A2A dispatch with its catalog unavailable: 502, never forwarded unchecked (3.0: no dispatch)',
  async (t) => {
    let forwarded = 0
    let catalogReads = 0
    const upstream = await startCustomUpstream(t, (req, res) => {
      if (req.url?.startsWith('/config') === true) catalogReads++
      else forwarded++
      res.writeHead(req.url?.startsWith('/config') === true ? 500 : 200, {
        'content-type': 'application/json',
      })
      res.end('{}')
    })
    const gateway = await startGateway(t, {
      upstream: { url: upstream.url },
      auth: {
        verification_keys: [(await import('../conformance/fixtures.js')).K],
        algorithm: 'HS256',
        authorization: true,
      },
      service_accounts: { enabled: false },
    })
    const runner = await jwt(['agents:run'], { sub: 'alice' })
    const reply = await fetch(`${gateway.url}/a2a/message/send`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${runner}`,
        'x-agent-id': 'team-1',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: {} },
      }),
    })
    // AgentOS 3.0 removed the dispatch (V3-A2A-1): nothing to check, and the upstream answers for
    // a route it does not have (this one answers everything with 200).
    t.equal(reply.status, onSuiteLine({ '2.9': 502, '3.0': 200 }))
    t.equal(
      forwarded,
      onSuiteLine({ '2.9': 0, '3.0': 1 }),
      'the message never reached the upstream unchecked',
    )
    t.equal(catalogReads > 0, onSuiteLine({ '2.9': true, '3.0': false }), 'the catalog read')
  },
)
