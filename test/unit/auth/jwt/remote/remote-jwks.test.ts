/**
 * The remote key set's cache and refresh logic, on a fake provider, a fake clock and fake timers:
 * nothing here waits for real time, and every fetch is counted.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { fixtures, publicJwk, rawJwt, signJwt } from '../../../../helpers/jwt.js'
import { metricValue, parseMetrics } from '../../../../helpers/metrics.js'
import { gatewayErrorOf } from '../../helpers.js'
import { settle } from '../../../../helpers/fake-time.js'
import { JWK, logged, remoteVerifier, tokenFor } from './fake-provider.js'

const randomKid = () =>
  rawJwt({ alg: 'RS256', kid: randomBytes(12).toString('hex') }, { sub: 'x' }, 'c2ln')

void t.test('startup loads the key set; tokens verify by kid', async (t) => {
  const { principal, provider, logs, metrics } = await remoteVerifier(t, {})
  t.equal(provider.fetches, 1, 'one fetch at startup')
  t.equal((await principal(await tokenFor('a'))).userId, 'user-a')
  t.same(provider.locations, [{ kind: 'jwks_url', url: 'https://idp.example/jwks.json' }])
  t.equal(logged(logs, 'remote JWKS loaded').length, 1)
  const text = await metrics.render()
  t.equal(metricValue(text, 'portcullis_jwks_keys', { source: 'remote' }), 1)
  t.equal(metricValue(text, 'portcullis_jwks_state', { state: 'fresh' }), 1)
  t.equal(metricValue(text, 'portcullis_jwks_age_seconds', { source: 'remote' }), 0)
  t.equal(
    metricValue(text, 'portcullis_jwks_fetches_total', { trigger: 'startup', outcome: 'updated' }),
    1,
  )
})

void t.test('the refresh follows Cache-Control max-age, within the bounds', async (t) => {
  const bounds = { jwks_refresh_min_seconds: 60, jwks_refresh_max_seconds: 3_600 }
  const cases: [lifetime: number | undefined, refreshAfter: number, why: string][] = [
    [600, 480, 'max-age 600: refreshed at 80 % of it, before it expires'],
    [10, 60, 'max-age 10 is below the minimum: 60'],
    [0, 60, 'no-cache: the minimum'],
    [86_400, 2_880, 'max-age 86400 is capped at the maximum (refreshed at 80 % of it)'],
    [undefined, 2_880, 'no Cache-Control: the maximum'],
  ]
  for (const [lifetime, refreshAfter, why] of cases) {
    const { timers, provider } = await remoteVerifier(t, bounds, (provider) =>
      provider.publish([JWK.a], lifetime),
    )
    t.equal(timers.nextDelay, refreshAfter * 1000, why)
    await timers.fireNext()
    t.equal(provider.fetches, 2, `${why}: the background refresh ran`)
  }
})

void t.test('refreshes are conditional: a 304 keeps the keys, the cache and its age', async (t) => {
  const { principal, provider, timers, clock, metrics, verifier } = await remoteVerifier(
    t,
    { jwks_refresh_min_seconds: 60, jwks_refresh_max_seconds: 600 },
    (provider) => provider.publish([JWK.a], 300),
  )
  const token = await tokenFor('a')
  await principal(token)
  clock.advance(100_000)
  await timers.fireNext()
  t.same(provider.etagsSent, [undefined, '"v1"'], 'the ETag went with the refresh')
  const text = await metrics.render()
  t.equal(
    metricValue(text, 'portcullis_jwks_fetches_total', {
      trigger: 'refresh',
      outcome: 'not_modified',
    }),
    1,
  )
  t.equal(metricValue(text, 'portcullis_jwks_age_seconds', { source: 'remote' }), 0, 'age reset')
  const generation = verifier.remoteKeySet?.generationAt(clock.now())
  await principal(token)
  t.equal(
    metricValue(await metrics.render(), 'portcullis_jwt_cache_lookups_total', { result: 'hit' }),
    1,
    'the verified-token cache survived the confirmation',
  )
  t.equal(verifier.remoteKeySet?.generationAt(clock.now()), generation)

  provider.etag = undefined // a provider without ETags: the same body is "unchanged"
  await timers.fireNext()
  t.equal(
    metricValue(await metrics.render(), 'portcullis_jwks_fetches_total', {
      trigger: 'refresh',
      outcome: 'unchanged',
    }),
    1,
  )
  t.equal(verifier.remoteKeySet?.generationAt(clock.now()), generation, 'no new generation')
})

void t.test(
  'an unknown kid: one shared fetch per cooldown, a new key usable at once',
  async (t) => {
    const { principal, provider, clock, metrics } = await remoteVerifier(t, {
      jwks_reload_cooldown_seconds: 30,
    })
    provider.publish([JWK.a, JWK.b])
    t.equal((await principal(await tokenFor('b'))).userId, 'user-b', 'the new key is found')
    t.equal(provider.fetches, 2)

    clock.advance(30_000)
    provider.publish([JWK.a, JWK.b, JWK.c])
    let open = () => undefined as void
    provider.gate = new Promise((resolve) => (open = resolve))
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (error: unknown) => (error as { status?: number }).status,
      )
    const published = Array.from({ length: 500 }, (_, index) =>
      outcome(tokenFor('c', { n: index }).then(principal)),
    )
    const random = Array.from({ length: 1_500 }, () => outcome(principal(randomKid())))
    await settle()
    t.equal(provider.fetches, 3, '2,000 concurrent unknown kids wait on one fetch')
    open()
    provider.gate = undefined
    t.same(new Set(await Promise.all(published)), new Set(['accepted']), 'they find the new key')
    t.same(new Set(await Promise.all(random)), new Set([401]), 'kids that are not there: 401')
    for (let index = 0; index < 100; index += 1) await gatewayErrorOf(() => principal(randomKid()))
    t.equal(provider.fetches, 3, 'none more within the cooldown')
    clock.advance(30_000)
    await gatewayErrorOf(() => principal(randomKid()))
    t.equal(provider.fetches, 4, 'one more once the cooldown has passed')
    t.equal(
      metricValue(await metrics.render(), 'portcullis_jwks_fetches_total', {
        trigger: 'unknown_kid',
        outcome: 'not_modified',
      }),
      1,
    )
  },
)

void t.test('a key that disappears verifies for the grace period, then not', async (t) => {
  const { principal, provider, timers, clock, logs } = await remoteVerifier(
    t,
    { jwks_removed_key_grace_seconds: 600, jwks_refresh_max_seconds: 60 },
    (provider) => provider.publish([JWK.a, JWK.b]),
  )
  const oldToken = await tokenFor('a')
  t.equal((await principal(oldToken)).userId, 'user-a')
  provider.publish([JWK.b])
  await timers.fireNext()
  t.match(logged(logs, 'remote JWKS updated')[0], { added: [], removed: ['a'], keys: 1 })
  t.equal((await principal(oldToken)).userId, 'user-a', 'within the grace period')
  t.equal((await principal(await tokenFor('a'))).userId, 'user-a', 'also uncached')
  clock.advance(600_000)
  const refused = await gatewayErrorOf(() => principal(oldToken))
  t.equal(refused.status, 401, 'after the grace period, refused although it was cached')
  t.equal((await principal(await tokenFor('b'))).userId, 'user-b')

  provider.publish([JWK.a, JWK.b])
  await timers.fireNext()
  provider.publish([JWK.b])
  await timers.fireNext()
  provider.publish([JWK.a, JWK.b])
  await timers.fireNext()
  clock.advance(600_000)
  t.equal((await principal(await tokenFor('a'))).userId, 'user-a', 'a key that came back stays')
})

void t.test('grace 0: a removed key is refused as soon as the set changes', async (t) => {
  const { principal, provider, timers } = await remoteVerifier(
    t,
    { jwks_removed_key_grace_seconds: 0 },
    (provider) => provider.publish([JWK.a, JWK.b]),
  )
  const token = await tokenFor('a')
  await principal(token)
  provider.publish([JWK.b])
  await timers.fireNext()
  t.equal((await gatewayErrorOf(() => principal(token))).status, 401)
})

void t.test(
  'provider down: the last good set is served, one log line per state change, recovery by itself',
  async (t) => {
    const { principal, provider, timers, clock, logs, metrics, verifier } = await remoteVerifier(
      t,
      { jwks_refresh_min_seconds: 60, jwks_max_stale_seconds: 3_600 },
      (provider) => provider.publish([JWK.a], 600),
    )
    const token = await tokenFor('a')
    provider.fail('refused')
    await timers.fireNext()
    for (let index = 0; index < 5; index += 1) {
      await timers.fireNext()
      t.equal(
        (await principal(token)).userId,
        'user-a',
        `still verified after ${index + 2} failures`,
      )
      await gatewayErrorOf(() => principal(randomKid()))
      clock.advance(30_000)
    }
    t.equal(logged(logs, 'remote JWKS fetch failed; serving the last good key set').length, 1)
    t.match(verifier.remoteKeySetHealth(), {
      ready: true,
      detail: /^stale: fetches fail \(refused\)/,
    })
    const text = await metrics.render()
    t.equal(metricValue(text, 'portcullis_jwks_state', { state: 'stale' }), 1)
    t.ok(
      (metricValue(text, 'portcullis_jwks_fetches_total', {
        trigger: 'retry',
        outcome: 'refused',
      }) ?? 0) >= 5,
      'retries are counted by outcome',
    )
    t.ok((metricValue(text, 'portcullis_jwks_age_seconds', { source: 'remote' }) ?? 0) > 480)

    const delays: number[] = []
    for (let index = 0; index < 10; index += 1) {
      delays.push(timers.nextDelay ?? -1)
      await timers.fireNext()
    }
    t.ok(
      delays.every((delay) => delay <= 60_000),
      'while failing, retried at least every jwks_refresh_min_seconds',
    )
    t.equal(timers.pending, 1, 'one timer at a time')

    provider.recover()
    await timers.fireNext()
    t.equal(logged(logs, 'remote JWKS fetched again; the key set is fresh').length, 1)
    t.same(verifier.remoteKeySetHealth(), { ready: true, detail: 'ok' })
    t.equal(timers.nextDelay, 480_000, 'back to the normal refresh')
  },
)

void t.test(
  'past jwks_max_stale_seconds the set is dropped: 503, not ready, then recovery',
  async (t) => {
    const { principal, provider, timers, clock, logs, verifier, metrics } = await remoteVerifier(
      t,
      { jwks_refresh_min_seconds: 60, jwks_max_stale_seconds: 600, verification_keys: null },
      (provider) => provider.publish([JWK.a], 600),
    )
    const token = await tokenFor('a')
    await principal(token)
    provider.fail('timeout', 'no answer within 5000 ms')
    clock.advance(1_199_000)
    t.equal((await principal(token)).userId, 'user-a', 'one second before the bound (cached)')
    clock.advance(1_000)
    const error = await gatewayErrorOf(() => principal(token))
    t.equal(error.status, 503)
    t.equal(error.code, 'AUTH_UNAVAILABLE')
    t.equal(
      error.detail,
      "Authentication is temporarily unavailable: the identity provider's signing keys are out of date and cannot be refreshed",
    )
    t.match(error.headers, { 'Retry-After': /^\d+$/ })
    t.equal(
      logged(
        logs,
        'remote JWKS: the last good key set is past auth.jwks_max_stale_seconds and was dropped; JWTs that need it get 503 until a fetch succeeds',
      ).length,
      1,
    )
    t.match(verifier.remoteKeySetHealth(), {
      ready: false,
      detail: /past auth\.jwks_max_stale_seconds/,
    })
    t.equal(
      metricValue(await metrics.render(), 'portcullis_jwks_state', { state: 'unavailable' }),
      1,
    )
    t.equal(metricValue(await metrics.render(), 'portcullis_jwks_keys', { source: 'remote' }), 0)
    await gatewayErrorOf(() => principal(token))

    provider.recover()
    await timers.fireNext()
    t.equal((await principal(token)).userId, 'user-a', 'a successful fetch restores the set')
    t.equal(logged(logs, 'remote JWKS loaded again').length, 1)
  },
)

void t.test(
  'never loaded: JWTs get 503 (static-key tokens still pass) until it loads',
  async (t) => {
    const { principal, provider, timers, logs, verifier, clock } = await remoteVerifier(
      t,
      { verification_keys: [fixtures.rsa2PublicPem()] },
      (provider) => {
        provider.publish([JWK.a])
        provider.fail('tls', 'TLS verification failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)')
      },
    )
    t.equal(
      logged(
        logs,
        'remote JWKS could not be loaded; JWTs that need it get 503 until a fetch succeeds',
      ).length,
      1,
    )
    const remoteToken = await tokenFor('a')
    const error = await gatewayErrorOf(() => principal(remoteToken))
    t.equal(error.status, 503)
    t.equal(
      error.detail,
      "Authentication is temporarily unavailable: the identity provider's signing keys could not be fetched",
    )
    t.equal(error.reason, 'jwt.keys_unavailable')
    t.equal((await principal(await tokenFor('b'))).userId, 'user-b', 'a static key still verifies')
    t.same(verifier.remoteKeySetHealth(), {
      ready: false,
      detail: 'unavailable: no key set loaded yet; fetches fail (tls)',
    })
    const fetches = provider.fetches
    for (let index = 0; index < 50; index += 1) await gatewayErrorOf(() => principal(remoteToken))
    t.ok(provider.fetches <= fetches + 1, 'requests retry at most once per cooldown')

    provider.recover()
    clock.advance(1_000)
    await timers.fireNext()
    t.equal((await principal(remoteToken)).userId, 'user-a', 'loaded by the background retry')
    t.equal(logged(logs, 'remote JWKS loaded').length, 1)
  },
)

void t.test('garbage keeps the last good key set; the same garbage is logged once', async (t) => {
  const { principal, provider, timers, logs, metrics } = await remoteVerifier(t, {
    jwks_max_keys: 3,
  })
  const token = await tokenFor('a')
  const invalid = async () =>
    parseMetrics(await metrics.render())
      .filter((sample) => sample.name === 'portcullis_jwks_fetches_total')
      .filter((sample) => sample.labels.outcome === 'invalid')
      .reduce((sum, sample) => sum + sample.value, 0)
  const documents: [text: string, why: string][] = [
    ['<html>oops</html>', 'not JSON'],
    ['{"keys": {}}', 'keys is not an array'],
    ['[]', 'not an object'],
    [JSON.stringify({ keys: [JWK.a, JWK.a, JWK.a, JWK.b] }), 'more than jwks_max_keys'],
    [
      JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', kid: 'e' }] }),
      'no key usable for RS256',
    ],
  ]
  for (const [text, why] of documents) {
    provider.text = text
    provider.etag = undefined
    const before = await invalid()
    await timers.fireNext()
    t.equal(await invalid(), before + 1, `${why}: a failed fetch`)
    t.equal((await principal(token)).userId, 'user-a', `${why}: the last good keys serve`)
  }
  const skipped = () => logged(logs, 'JWKS entry skipped: not an "RSA" key').length
  const before = skipped()
  t.equal(before, 1, 'the skipped entry was logged')
  await timers.fireNext()
  await timers.fireNext()
  t.equal(skipped(), before, 'a document refused once is not parsed (and logged) again')
  t.equal(logged(logs, 'remote JWKS fetch failed; serving the last good key set').length, 1)
  t.notMatch(logs.text, /"n":"/, 'no key material in the logs')
})

void t.test('a 304 to a request that named no ETag is a failed fetch', async (t) => {
  const { provider, verifier } = await remoteVerifier(t, {}, (provider) => {
    provider.publish([JWK.a])
    provider.fetch = async () => ({ kind: 'not_modified', lifetimeSeconds: undefined })
  })
  t.equal(provider.closed, false)
  t.match(verifier.remoteKeySetHealth(), { ready: false, detail: /\(invalid\)/ })
})

void t.test('oidc_issuer: tokens verified with its keys must carry exactly its iss', async (t) => {
  const issuer = 'https://idp.example/realms/agents'
  const { principal, provider } = await remoteVerifier(t, {
    jwks_url: null,
    oidc_issuer: issuer,
    verification_keys: [fixtures.rsa2PublicPem()],
  })
  t.same(provider.locations, [{ kind: 'oidc', issuer }])
  t.equal((await principal(await tokenFor('a', { iss: issuer }))).userId, 'user-a')
  const cases: [claims: Record<string, unknown>, detail: string][] = [
    [{}, 'Invalid token: Token is missing the "iss" claim'],
    [{ iss: 42 }, 'Invalid token: Payload Issuer (iss) must be a string'],
    [{ iss: null }, 'Invalid token: Payload Issuer (iss) must be a string'],
    [{ iss: `${issuer}/` }, 'Invalid token: Invalid issuer'],
    [{ iss: 'https://evil.example/realms/agents' }, 'Invalid token: Invalid issuer'],
  ]
  for (const [claims, detail] of cases) {
    const error = await gatewayErrorOf(async () => principal(await tokenFor('a', claims)))
    t.equal(error.status, 401, JSON.stringify(claims))
    t.equal(error.detail, detail)
    t.equal(error.reason, 'jwt.issuer')
  }
  t.equal(
    (await principal(await tokenFor('b'))).userId,
    'user-b',
    'a static key verifies its own tokens without the issuer check',
  )
})

void t.test('key order: remote set, then the JWKS file, then static keys', async (t) => {
  const dir = t.testdir({
    'jwks.json': JSON.stringify({
      keys: [
        publicJwk(fixtures.rsa2PublicPem(), { kid: 'a' }),
        publicJwk(fixtures.rsa2PublicPem(), { kid: 'f' }),
      ],
    }),
  })
  const { principal, provider } = await remoteVerifier(t, {
    jwks_file: `${dir}/jwks.json`,
    jwks_watch: false,
  })
  t.equal((await principal(await tokenFor('a'))).userId, 'user-a', 'kid a: the remote key')
  const fileToken = await signJwt(
    { sub: 'file-user' },
    { alg: 'RS256', key: fixtures.rsa2Private(), kid: 'f' },
  )
  const fetches = provider.fetches
  t.equal((await principal(fileToken)).userId, 'file-user', 'kid f: the file key')
  t.equal(provider.fetches, fetches, 'a kid the file knows fetches nothing')
})

void t.test('a reload with the same remote settings shares the key set', async (t) => {
  const { provider, recreate, verifier, timers, clock } = await remoteVerifier(t, {})
  const next = await recreate({ user_isolation: true })
  t.equal(provider.fetches, 1, 'no new fetch for a change elsewhere in auth')
  t.equal(next.remoteKeySet, verifier.remoteKeySet, 'one key set')
  verifier.close()
  t.equal(timers.pending, 1, 'still refreshed for the new verifier')
  t.equal(provider.closed, false)
  clock.advance(1)
  const other = await recreate({ jwks_removed_key_grace_seconds: 5 })
  t.not(other.remoteKeySet, next.remoteKeySet, 'new remote settings: a new key set')
  t.equal(provider.fetches, 2)
  next.close()
  other.close()
  t.equal(provider.closed, true, 'the last share closes the connections')
})

void t.test('SIGHUP (reload) refetches the remote set', async (t) => {
  const { provider, verifier, principal } = await remoteVerifier(t, {})
  provider.publish([JWK.b])
  await verifier.reload()
  t.equal(provider.fetches, 2)
  t.equal((await principal(await tokenFor('b'))).userId, 'user-b')
})
