/**
 * Keys from an identity provider over HTTPS: a real discovery document and JWKS on loopback, with
 * a certificate from a throwaway CA handed to the gateway (auth.jwks_ca_file). Keys rotate while
 * traffic runs; the provider is stopped, restarted, slowed down and made to answer garbage; its
 * Cache-Control and ETag are followed (the fetches are counted). Waits are bounded polls on what
 * the gateway reports; nothing asserts on elapsed time.
 */
import { randomUUID, type KeyObject } from 'node:crypto'
import t, { type Test } from 'tap'
import { startGateway, type TestGateway } from '../../helpers/gateway.js'
import {
  DISCOVERY_PATH,
  JWKS_PATH,
  startJwksServer,
  type JwksServer,
} from '../../helpers/jwks-server.js'
import { fixtures, publicJwk, rawJwt, signJwt } from '../../helpers/jwt.js'
import { parseMetrics } from '../../helpers/metrics.js'
import { startRuntime } from '../../helpers/runtime.js'
import { pinnedLine } from '../../helpers/suite-line.js'

const K1 = publicJwk(fixtures.rsaPublicPem(), { kid: 'k1', use: 'sig', alg: 'RS256' })
const K2 = publicJwk(fixtures.rsa2PublicPem(), { kid: 'k2', use: 'sig', alg: 'RS256' })
const SIGNER: Record<string, () => KeyObject> = {
  k1: fixtures.rsaPrivate,
  k2: fixtures.rsa2Private,
}

function token(kid: string, claims: Record<string, unknown> = {}): Promise<string> {
  return signJwt(
    {
      sub: `user-${kid}`,
      scopes: ['agents:read'],
      exp: Math.floor(Date.now() / 1000) + 3_600,
      ...claims,
    },
    { alg: 'RS256', key: (SIGNER[kid] ?? fixtures.rsaPrivate)(), kid },
  )
}

async function call(
  gateway: TestGateway,
  bearer: string,
): Promise<{ status: number; body: string; retryAfter: string | null }> {
  const response = await fetch(`${gateway.url}/agents`, {
    headers: { authorization: `Bearer ${bearer}` },
  })
  return {
    status: response.status,
    body: await response.text(),
    retryAfter: response.headers.get('retry-after'),
  }
}

const status = async (gateway: TestGateway, bearer: string) => (await call(gateway, bearer)).status

async function readiness(
  gateway: TestGateway,
): Promise<{ status: number; checks: Record<string, string> }> {
  const response = await fetch(`${gateway.adminUrl}/readyz`)
  const body = (await response.json()) as { checks: Record<string, string> }
  return { status: response.status, checks: body.checks }
}

/** Sum of `portcullis_jwks_fetches_total` samples with these labels. */
async function fetches(gateway: TestGateway, labels: Record<string, string> = {}): Promise<number> {
  return parseMetrics(await gateway.metrics())
    .filter((sample) => sample.name === 'portcullis_jwks_fetches_total')
    .filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0)
}

async function metric(gateway: TestGateway, name: string, labels: Record<string, string> = {}) {
  return parseMetrics(await gateway.metrics()).find(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )?.value
}

/** Polls until `check` holds (bounded; a failure names what was awaited). */
async function until(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const logCount = (gateway: TestGateway, msg: string) =>
  gateway.logs.records().filter((record) => record.msg === msg).length

async function start(t: Test, server: JwksServer, auth: Record<string, unknown> = {}) {
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: {
      algorithm: 'RS256',
      oidc_issuer: server.issuer,
      jwks_ca_file: server.caFile,
      jwks_allow_private_addresses: true,
      authorization: true,
      ...auth,
    },
    service_accounts: { enabled: false },
  })
  return { runtime, gateway }
}

void t.test('OIDC discovery over HTTPS with a private CA; iss is checked', async (t) => {
  const server = await startJwksServer(t, [K1])
  const { gateway, runtime } = await start(t, server)
  t.equal(server.count(DISCOVERY_PATH), 1, 'the discovery document was read at startup')
  t.equal(server.count(JWKS_PATH), 1, 'and the JWKS it names')
  t.equal(await status(gateway, await token('k1', { iss: server.issuer })), 200)
  runtime.clear()
  const wrong = await call(gateway, await token('k1', { iss: 'https://evil.example/realms/test' }))
  t.equal(wrong.status, 401)
  t.same(JSON.parse(wrong.body), { detail: 'Invalid token: Invalid issuer' })
  const missing = await call(gateway, await token('k1'))
  t.same(JSON.parse(missing.body), { detail: 'Invalid token: Token is missing the "iss" claim' })
  t.equal(runtime.requests.length, 0, 'nothing refused reached the upstream')
  t.match(await readiness(gateway), {
    status: 200,
    checks: { upstream: 'ok', agentos: pinnedLine(), jwks: 'ok' },
  })
  t.equal(await metric(gateway, 'portcullis_jwks_keys', { source: 'remote' }), 1)
  t.equal(await metric(gateway, 'portcullis_jwks_state', { state: 'fresh' }), 1)
})

void t.test('a jwks_url is fetched directly; the CA is required to trust it', async (t) => {
  const server = await startJwksServer(t, [K1])
  const trusted = await start(t, server, { oidc_issuer: null, jwks_url: server.jwksUrl })
  t.equal(await status(trusted.gateway, await token('k1')), 200, 'no iss check for a jwks_url')
  t.equal(server.count(DISCOVERY_PATH), 0)

  const untrusted = await start(t, server, {
    oidc_issuer: null,
    jwks_url: server.jwksUrl,
    jwks_ca_file: null,
  })
  const refused = await call(untrusted.gateway, await token('k1'))
  t.equal(refused.status, 503, 'a JWT cannot be judged: 503, not 401')
  t.same(JSON.parse(refused.body), {
    detail:
      "Authentication is temporarily unavailable: the identity provider's signing keys could not be fetched",
  })
  t.match(refused.retryAfter, /^\d+$/, 'with Retry-After')
  t.match(await readiness(untrusted.gateway), {
    status: 503,
    checks: {
      upstream: 'ok',
      agentos: pinnedLine(),
      jwks: 'unavailable: no key set loaded yet; fetches fail (tls)',
    },
  })
  t.equal((await fetch(`${untrusted.gateway.url}/health`)).status, 200, 'public routes still pass')
  t.equal(
    logCount(
      untrusted.gateway,
      'remote JWKS could not be loaded; JWTs that need it get 503 until a fetch succeeds',
    ),
    1,
  )
})

void t.test('keys rotated while traffic runs: no request is refused', async (t) => {
  const server = await startJwksServer(t, [K1])
  const { gateway } = await start(t, server, { oidc_issuer: null, jwks_url: server.jwksUrl })
  let signing = await token('k1')
  let running = true
  const statuses = new Map<number, number>()
  const traffic = Array.from({ length: 8 }, async () => {
    while (running) {
      const code = await status(gateway, signing)
      statuses.set(code, (statuses.get(code) ?? 0) + 1)
    }
  })
  const served = async (count: number) => {
    const target = [...statuses.values()].reduce((a, b) => a + b, 0) + count
    await until(
      async () => [...statuses.values()].reduce((a, b) => a + b, 0) >= target,
      `${count} requests`,
    )
  }
  await served(50)
  // The provider publishes the next key, then starts signing with it: the first token naming it
  // refetches the set (an unknown kid) and every request after it is verified.
  server.setKeys([K1, K2])
  await served(50)
  signing = await token('k2')
  await served(100)
  // The old key is withdrawn: tokens signed with it stay valid for the grace period.
  server.setKeys([K2])
  await gateway.gateway.reload()
  await served(50)
  running = false
  await Promise.all(traffic)
  t.same([...statuses.keys()], [200], `every request answered 200 (${[...statuses.values()][0]})`)
  t.equal(
    await fetches(gateway, { trigger: 'unknown_kid', outcome: 'updated' }),
    1,
    'one refetch found the new key',
  )
  t.equal(await status(gateway, await token('k1')), 200, 'the withdrawn key, within its grace')
})

void t.test(
  'the provider stops and comes back: stale keys serve, then it recovers by itself',
  async (t) => {
    const server = await startJwksServer(t, [K1], { cacheControl: 'max-age=1' })
    const { gateway } = await start(t, server, {
      jwks_refresh_min_seconds: 1,
      jwks_refresh_max_seconds: 1,
    })
    const good = await token('k1', { iss: server.issuer })
    t.equal(await status(gateway, good), 200)
    await server.stop()
    await until(
      async () => (await fetches(gateway, { outcome: 'refused' })) >= 3,
      'three failed fetches',
    )
    t.equal(await status(gateway, good), 200, 'the last good key set still verifies')
    t.equal(
      await status(gateway, await token('k1', { iss: server.issuer, n: 2 })),
      200,
      'uncached too',
    )
    const ready = await readiness(gateway)
    t.equal(ready.status, 200, 'still ready')
    t.match(
      ready.checks.jwks,
      /^stale: fetches fail \(refused\); serving the key set confirmed \d+ s ago for up to \d+ s more$/,
    )
    t.equal(await metric(gateway, 'portcullis_jwks_state', { state: 'stale' }), 1)
    t.ok(((await metric(gateway, 'portcullis_jwks_age_seconds', { source: 'remote' })) ?? 0) > 0)
    t.equal(
      logCount(gateway, 'remote JWKS fetch failed; serving the last good key set'),
      1,
      'one log line for the state change, not one per failed fetch',
    )

    await server.start()
    await until(
      async () => (await metric(gateway, 'portcullis_jwks_state', { state: 'fresh' })) === 1,
      'recovery',
    )
    t.equal(logCount(gateway, 'remote JWKS fetched again; the key set is fresh'), 1)
    t.same((await readiness(gateway)).checks.jwks, 'ok')
    t.equal(await status(gateway, good), 200)
  },
)

void t.test('slow answers time out; the last good key set is kept', async (t) => {
  const server = await startJwksServer(t, [K1])
  const { gateway } = await start(t, server, {
    jwks_fetch_timeout_ms: 1_500,
    jwks_reload_cooldown_seconds: 0,
  })
  const good = await token('k1', { iss: server.issuer })
  t.equal(await status(gateway, good), 200)

  server.behaviour.delayMs = 30_000
  t.equal(
    await status(gateway, await token('unknown', { iss: server.issuer })),
    401,
    'waited for the fetch, then refused',
  )
  t.equal(await fetches(gateway, { trigger: 'unknown_kid', outcome: 'timeout' }), 1)
  server.behaviour.delayMs = 0
  server.behaviour.trickleMs = 200
  server.setKeys([K1]) // a new ETag: the body is sent, one byte at a time
  t.equal(await status(gateway, await token('unknown', { iss: server.issuer, n: 2 })), 401)
  t.equal(
    await fetches(gateway, { trigger: 'unknown_kid', outcome: 'timeout' }),
    2,
    'a trickling body too',
  )
  t.equal(await status(gateway, good), 200, 'the key set in use is unchanged')

  const slowStart = await startJwksServer(t, [K1], { delayMs: 30_000 })
  const { gateway: late } = await start(t, slowStart, { jwks_fetch_timeout_ms: 1_500 })
  t.equal(
    (await call(late, await token('k1', { iss: slowStart.issuer }))).status,
    503,
    'a provider that never answered: 503',
  )
  t.match((await readiness(late)).checks.jwks, /no key set loaded yet; fetches fail \(timeout\)/)
  slowStart.behaviour.delayMs = 0
  await until(
    async () => (await status(late, await token('k1', { iss: slowStart.issuer }))) === 200,
    'the retry to load the keys',
  )
})

void t.test(
  'oversized and malformed documents are refused; the last good set serves',
  async (t) => {
    const server = await startJwksServer(t, [K1])
    const { gateway } = await start(t, server, {
      oidc_issuer: null,
      jwks_url: server.jwksUrl,
      jwks_max_bytes: 16_384,
      jwks_max_keys: 5,
      jwks_reload_cooldown_seconds: 0,
    })
    const good = await token('k1')
    const padding = 'x'.repeat(20_000)
    const cases: [string, Partial<JwksServer['behaviour']>, string][] = [
      [
        'oversized, with Content-Length',
        { body: JSON.stringify({ keys: [K1], padding }) },
        'too_large',
      ],
      [
        'oversized, chunked',
        { body: JSON.stringify({ keys: [K1], padding }), chunked: true },
        'too_large',
      ],
      ['not JSON', { body: '<html>502 Bad Gateway</html>' }, 'invalid'],
      ['no keys array', { body: '{"keys": null}' }, 'invalid'],
      ['too many keys', { body: JSON.stringify({ keys: Array(6).fill(K1) }) }, 'invalid'],
      ['no usable key', { body: JSON.stringify({ keys: [{ ...K1, kty: 'EC' }] }) }, 'invalid'],
      ['an error status', { status: 500 }, 'http_status'],
    ]
    for (const [what, behaviour, outcome] of cases) {
      Object.assign(server.behaviour, { body: undefined, chunked: false, status: 0 }, behaviour)
      const before = await fetches(gateway, { outcome })
      t.equal(
        await status(gateway, await token(randomUUID())),
        401,
        `${what}: an unknown kid is refused`,
      )
      t.equal(await fetches(gateway, { outcome }), before + 1, `${what}: counted as ${outcome}`)
      t.equal(await status(gateway, good), 200, `${what}: the last good key set serves`)
    }
    Object.assign(server.behaviour, { body: undefined, chunked: false, status: 0 })
    server.setKeys([K1, K2])
    t.equal(await status(gateway, await token('k2')), 200, 'a good document is taken again')
    t.notMatch(gateway.logs.text, /"n":"/, 'no key material in the logs')
  },
)

void t.test('Cache-Control and ETag are honoured (fetches counted)', async (t) => {
  const server = await startJwksServer(t, [K1], { cacheControl: 'public, max-age=1' })
  const { gateway } = await start(t, server, {
    oidc_issuer: null,
    jwks_url: server.jwksUrl,
    jwks_refresh_min_seconds: 1,
  })
  const good = await token('k1')
  t.equal(await status(gateway, good), 200)
  await until(async () => server.count(JWKS_PATH) >= 4, 'three background refreshes (max-age=1)')
  t.ok(server.conditional >= 3, `refreshes were conditional (${server.conditional})`)
  t.ok(server.notModified >= 3, `and answered 304 (${server.notModified})`)
  t.ok((await fetches(gateway, { trigger: 'refresh', outcome: 'not_modified' })) >= 3)
  t.equal(await status(gateway, good), 200)
  t.ok(
    ((await metric(gateway, 'portcullis_jwt_cache_lookups_total', { result: 'hit' })) ?? 0) >= 1,
    'a 304 keeps the verified-token cache',
  )

  const cached = await startJwksServer(t, [K1], { cacheControl: 'max-age=86400' })
  const { gateway: quiet } = await start(t, cached, {
    oidc_issuer: null,
    jwks_url: cached.jwksUrl,
    jwks_refresh_min_seconds: 1,
  })
  t.equal(await status(quiet, good), 200)
  await until(async () => server.count(JWKS_PATH) >= 6, 'two more refreshes of the first provider')
  t.equal(cached.count(JWKS_PATH), 1, 'max-age=86400: no refresh in the meantime')
})

void t.test('concurrent unknown kids: one fetch, shared; a new key is found by all', async (t) => {
  const server = await startJwksServer(t, [K1])
  const { gateway } = await start(t, server, { oidc_issuer: null, jwks_url: server.jwksUrl })
  server.behaviour.delayMs = 300
  server.setKeys([K1, K2])
  const fresh = await Promise.all(Array.from({ length: 40 }, (_, n) => token('k2', { n })))
  const forged = Array.from({ length: 160 }, () =>
    rawJwt({ alg: 'RS256', kid: randomUUID() }, { sub: 'x', scopes: ['agents:read'] }, 'AAAA'),
  )
  const results = await Promise.all([...fresh, ...forged].map((bearer) => status(gateway, bearer)))
  t.same(
    new Set(results.slice(0, fresh.length)),
    new Set([200]),
    'every token with the new key verified',
  )
  t.same(new Set(results.slice(fresh.length)), new Set([401]), 'every random kid refused')
  t.equal(server.count(JWKS_PATH), 2, 'the startup fetch and one shared refetch')
})

void t.test('SSRF guards: private targets and cross-host redirects need an opt-in', async (t) => {
  const server = await startJwksServer(t, [K1])
  // A provider on a non-public address without the opt-in would get every JWT a 503: the
  // configuration is refused at start, naming the setting (the same line as `config check`).
  await t.rejects(
    start(t, server, {
      oidc_issuer: null,
      jwks_url: server.jwksUrl,
      jwks_allow_private_addresses: false,
    }),
    {
      message:
        'the configuration cannot be applied: auth.jwks_url: 127.0.0.1 resolves to the non-public address 127.0.0.1; set auth.jwks_allow_private_addresses: true if the identity provider is meant to be there (an in-cluster Keycloak or Dex)',
    },
  )
  await t.rejects(
    start(t, server, {
      oidc_issuer: server.issuer.replace('127.0.0.1', 'localhost'),
      jwks_allow_private_addresses: false,
    }),
    {
      message:
        /auth\.oidc_issuer: localhost resolves to the non-public address 127\.0\.0\.1; set auth\.jwks_allow_private_addresses: true/,
    },
    'a name resolving to loopback too',
  )
  t.equal(server.count(JWKS_PATH) + server.count(DISCOVERY_PATH), 0, 'neither connected')

  server.route('/moved-away', (_req, res) => {
    res.writeHead(302, { location: `https://localhost:${server.port}${JWKS_PATH}` }).end()
  })
  server.route('/moved-here', (_req, res) => {
    res.writeHead(301, { location: JWKS_PATH }).end()
  })
  const away = await start(t, server, {
    oidc_issuer: null,
    jwks_url: `${server.origin}/moved-away`,
  })
  t.equal(
    await status(away.gateway, await token('k1')),
    503,
    'a redirect to another host is not followed',
  )
  t.match(away.gateway.logs.text, /redirected to another host/)
  t.ok((await fetches(away.gateway, { outcome: 'blocked' })) >= 1, 'counted as blocked')
  t.equal(server.count(JWKS_PATH), 0)
  const here = await start(t, server, {
    oidc_issuer: null,
    jwks_url: `${server.origin}/moved-here`,
  })
  t.equal(
    await status(here.gateway, await token('k1')),
    200,
    'a redirect within the host is followed',
  )
})

void t.test('reloads keep the remote key set', async (t) => {
  const server = await startJwksServer(t, [K1])
  const { gateway } = await start(t, server)
  const good = await token('k1', { iss: server.issuer })
  t.equal(await status(gateway, good), 200)
  t.equal(server.count(JWKS_PATH), 1)

  await gateway.gateway.reload()
  t.equal(server.count(JWKS_PATH), 2, 'SIGHUP refetches (conditionally)')
  t.equal(server.notModified, 1)

  await server.stop()
  const changed = await gateway.gateway.reload({
    ...gateway.config,
    auth: { ...gateway.config.auth, user_isolation: true },
  })
  t.equal(changed.outcome, 'applied')
  t.equal(await status(gateway, good), 200, 'another auth setting changed: the key set was kept')
  t.equal(await metric(gateway, 'portcullis_jwks_keys', { source: 'remote' }), 1)
  await server.start()
  const moved = await gateway.gateway.reload({
    ...gateway.config,
    auth: { ...gateway.config.auth, jwks_removed_key_grace_seconds: 0 },
  })
  t.equal(moved.outcome, 'applied')
  t.equal(server.count(JWKS_PATH), 3, 'new remote settings: a new key set, fetched')
  t.equal(await status(gateway, good), 200)
})
