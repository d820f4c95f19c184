/**
 * Attack class 26 — WebSocket upgrades bypassing the auth middleware (zhin#463, teamclaude#314,
 * nginx#1472 h2c, Kubernetes CVE-2018-1002105). Upgrades run the same decision core as HTTP: no,
 * invalid or revoked (signing key removed) credentials are refused on the raw socket; only
 * WebSocket is tunnelled (`Upgrade: h2c` and others are 400); an upgrade to a route needing scopes
 * needs them; a connection does not outlive its token. Corpus upgrade-requests.txt.
 */
import { writeFile } from 'node:fs/promises'
import t from 'tap'
import { fixtures, publicJwk, signJwt } from '../helpers/jwt.js'
import { rawRequestHead } from '../helpers/raw-http.js'
import { startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { now } from '../conformance/fixtures.js'
import { bearer, corpus, jwt, refused, securedGateway, sendRaw, upgrade, wsUrl } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)
const token = await jwt(['workflows:read'], { sub: 'alice' })

void t.test('upgrade-requests.txt: refused on the raw socket, or relayed when valid', async (t) => {
  for (const [method = '', target = '', lines = '', expected = '', why = ''] of corpus(
    'upgrade-requests.txt',
  )) {
    const head = ['Host: portcullis.test', ...lines.replaceAll('{token}', token).split('\n')]
    const sent = await sendRaw(gateway, runtime, rawRequestHead(method, target, head))
    if (expected === '101') {
      t.equal(sent.status, 101, why)
      t.equal(sent.sockets.length, 1, `${why}: relayed`)
      t.equal(sent.sockets[0]?.headers['x-auth-user-id'], 'alice', `${why}: as the verified user`)
    } else {
      refused(t, sent, Number(expected), undefined, why)
    }
  }
})

void t.test('CONNECT is never tunnelled', async (t) => {
  const head = rawRequestHead('CONNECT', 'internal.example:443', [
    'Host: internal.example:443',
    bearer(token),
  ])
  const outcome = await sendRaw(gateway, runtime, head).catch((error: Error) => error)
  t.ok(outcome instanceof Error || outcome.status >= 400, 'closed or refused')
  t.equal(runtime.started, 0)
})

void t.test('an upgrade to a route that needs scopes needs them', async (t) => {
  const outsider = await jwt(['agents:read'], { sub: 'mallory' })
  refused(
    t,
    await upgrade(gateway, runtime, '/workflows/ws', [bearer(outsider)]),
    403,
    'Insufficient permissions. Required scope(s): workflows:read',
  )
  const perResource = await jwt(['workflows:ws:read'], { sub: 'alice' })
  t.equal(
    (await upgrade(gateway, runtime, '/workflows/ws', [bearer(perResource)])).status,
    101,
    'a grant for this id',
  )
  const otherResource = await jwt(['workflows:w2:read'], { sub: 'alice' })
  refused(
    t,
    await upgrade(gateway, runtime, '/workflows/ws', [bearer(otherResource)]),
    403,
    undefined,
    'a grant for another id',
  )
})

void t.test('a token whose key was revoked cannot upgrade', async (t) => {
  // A JWT is revoked by removing its signing key (a revoked svc_pat_ upgrade: 17-cache-poisoning).
  const path = `${t.testdir({})}/jwks.json`
  const jwks = (pem: string) => JSON.stringify({ keys: [publicJwk(pem, { kid: 'k1' })] })
  await writeFile(path, jwks(fixtures.rsaPublicPem()))
  const rotating = await securedGateway(t, runtime, {
    auth: { algorithm: 'RS256', verification_keys: null, jwks_file: path, jwks_watch: false },
  })
  const signed = await signJwt(
    { sub: 'alice', scopes: ['workflows:read'], exp: now() + 600 },
    { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'k1' },
  )
  t.equal((await upgrade(rotating, runtime, '/ws/echo', [bearer(signed)])).status, 101, 'before')
  await writeFile(path, jwks(fixtures.rsa2PublicPem()))
  await rotating.gateway.reload()
  refused(
    t,
    await upgrade(rotating, runtime, '/ws/echo', [bearer(signed)]),
    401,
    undefined,
    'after',
  )
})

void t.test('a connection ends when its token expires (1008)', async (t) => {
  const brief = await jwt(['workflows:read'], { sub: 'alice', exp: now() + 2 })
  const client = await WsClient.open(t, wsUrl(gateway, '/ws/echo'), [], {
    authorization: `Bearer ${brief}`,
  })
  t.same(await client.waitClosed(), { code: 1008, reason: 'credential expired' })
})
