/**
 * Attack class 21 — header-driven key selection: `jku`/`x5u`/`jwk`/`x5c` embedded or remote keys,
 * `kid` path traversal, SQL and URL injection (the JWT attack corpus; Tyk used `kid` as identity).
 * Corpus jwt-headers.json: tokens signed by an attacker's key whatever their header says are
 * refused and nothing is fetched; a genuine token is judged by its signature alone; `kid` selects
 * a key only by exact match; an unknown `crit` parameter is refused. The same holds with the keys
 * of a remote JWKS (auth.jwks_url): its URL comes from the config only, never from a header.
 */
import { createSign, generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import {
  fixtureJwksKeys,
  JWKS_PATH,
  remoteJwksAuth,
  startJwksServer,
} from '../helpers/jwks-server.js'
import { base64url, fixtures, publicJwk, signJwt } from '../helpers/jwt.js'
import { startCustomUpstream, startRuntime } from '../helpers/runtime.js'
import { bearer, jsonCorpus, refused, securedGateway, send, upgrade } from './harness.js'

type Header = Record<string, unknown>
const corpus = jsonCorpus<{ forged: Header[]; harmless: Header[]; crit: Header[] }>(
  'jwt-headers.json',
)
const runtime = await startRuntime(t)
let fetched = 0
const keyServer = await startCustomUpstream(t, (_req, res) => {
  fetched++
  res.end('{}')
})
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 })
const placeholders: Record<string, unknown> = {
  '{attackerJwk}': publicJwk(attacker.publicKey),
  '{keyServer}': keyServer.url,
}
const fill = (header: Header): Header =>
  JSON.parse(JSON.stringify(header), (_key, value: unknown) => {
    if (typeof value !== 'string') return value
    if (value in placeholders) return placeholders[value]
    return value.replace('{keyServer}', keyServer.url)
  }) as Header

const provider = await startJwksServer(t, fixtureJwksKeys())
const gateways = {
  remote: await securedGateway(t, runtime, {
    auth: {
      algorithm: 'RS256',
      verification_keys: null,
      ...remoteJwksAuth(provider),
    },
  }),
  jwks: await securedGateway(t, runtime, {
    auth: {
      algorithm: 'RS256',
      verification_keys: null,
      jwks_file: fixtures.jwksPath,
      jwks_watch: false,
    },
  }),
  static: await securedGateway(t, runtime, {
    auth: { algorithm: 'RS256', verification_keys: [fixtures.rsaPublicPem()] },
  }),
}
const claims = (scopes: string[]) => ({
  sub: 'mallory',
  scopes,
  exp: Math.floor(Date.now() / 1000) + 600,
})
const sign = (header: Header, key: Parameters<typeof signJwt>[1]['key'], scopes = ['os:admin']) =>
  signJwt(claims(scopes), { alg: 'RS256', key, header: fill(header) })

void t.test('forged: signed by the attacker, whatever key the header names → 401', async (t) => {
  for (const header of corpus.forged) {
    const token = await sign(header, attacker.privateKey)
    for (const [name, gateway] of Object.entries(gateways)) {
      const label = `${name}: ${JSON.stringify(header).slice(0, 60)}`
      refused(
        t,
        await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)]),
        401,
        undefined,
        label,
      )
      refused(
        t,
        await upgrade(gateway, runtime, '/ws/echo', [bearer(token)]),
        401,
        undefined,
        `${label} upgrade`,
      )
    }
  }
  t.equal(fetched, 0, 'no key URL was ever fetched')
  t.ok(
    provider.count(JWKS_PATH) <= 2,
    `the configured JWKS was fetched at startup and at most once more (${provider.count(JWKS_PATH)})`,
  )
})

void t.test('harmless: a genuine token is judged by its signature alone', async (t) => {
  for (const header of corpus.harmless) {
    const token = await sign({ ...header, kid: 'test-key-1' }, fixtures.rsaPrivate(), [
      'agents:read',
    ])
    for (const [name, gateway] of Object.entries(gateways)) {
      t.equal(
        (await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)])).status,
        200,
        `${name}: ${JSON.stringify(header).slice(0, 60)}`,
      )
    }
  }
  t.equal(fetched, 0)
})

void t.test('kid selects a JWKS key by exact match only', async (t) => {
  // Signed by test-key-1: only its exact kid selects it (other kids fall back to the kid-less key).
  for (const header of corpus.forged.filter(
    (entry) => 'kid' in entry && entry.kid !== 'test-key-1',
  )) {
    const token = await sign(header, fixtures.rsaPrivate(), ['agents:read'])
    refused(
      t,
      await send(gateways.jwks, runtime, 'GET', '/agents/a1', [bearer(token)]),
      401,
      undefined,
      `kid ${JSON.stringify(header.kid)}`,
    )
  }
  const exact = await sign({ kid: 'test-key-1' }, fixtures.rsaPrivate(), ['agents:read'])
  t.equal((await send(gateways.jwks, runtime, 'GET', '/agents/a1', [bearer(exact)])).status, 200)
  t.equal((await send(gateways.remote, runtime, 'GET', '/agents/a1', [bearer(exact)])).status, 200)
})

void t.test(
  'crit: an unknown critical parameter is refused, even on a genuine token',
  async (t) => {
    for (const header of [{}, ...corpus.crit]) {
      // Signed by hand: a JOSE library refuses to produce most of these.
      const head = base64url(JSON.stringify({ alg: 'RS256', kid: 'test-key-1', ...header }))
      const input = `${head}.${base64url(JSON.stringify(claims(['agents:read'])))}`
      const signature = createSign('RSA-SHA256').update(input).sign(fixtures.rsaPrivate())
      const token = `${input}.${signature.toString('base64url')}`
      for (const [name, gateway] of Object.entries(gateways)) {
        const sent = await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)])
        // The same construction without crit verifies: the refusals are about crit alone.
        if (!('crit' in header)) t.equal(sent.status, 200, `${name}: no crit`)
        else refused(t, sent, 401, undefined, `${name}: ${JSON.stringify(header)}`)
      }
    }
  },
)
