/**
 * Attack class 22 — JWKS fetch amplification via unknown `kid` (coreos/go-oidc#482, oathkeeper
 * fetcher_default.go, envoy#37763). 1 000 tokens with distinct random kids, sent concurrently
 * over HTTP and upgrades, cause at most one re-read of the JWKS file per cooldown, counted by
 * `portcullis_jwks_reloads_total`, and at most one fetch of a remote JWKS per cooldown, counted
 * by the HTTPS provider itself; a genuine token keeps working throughout. No timing is asserted:
 * the bound is on the work done, which is what latency depends on.
 */
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import type { TestGateway } from '../helpers/gateway.js'
import {
  fixtureJwksKeys,
  JWKS_PATH,
  remoteJwksAuth,
  startJwksServer,
} from '../helpers/jwks-server.js'
import { fixtures, rawJwt, signJwt } from '../helpers/jwt.js'
import { parseMetrics } from '../helpers/metrics.js'
import { startRuntime } from '../helpers/runtime.js'
import { bearer, refused, securedGateway, upgrade } from './harness.js'

const FLOOD = 1_000
const CONCURRENCY = 25
const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  auth: {
    algorithm: 'RS256',
    verification_keys: null,
    jwks_file: fixtures.jwksPath,
    jwks_watch: false,
    jwks_reload_cooldown_seconds: 30,
  },
})
const exp = Math.floor(Date.now() / 1000) + 600
const genuine = await signJwt(
  { sub: 'alice', scopes: ['agents:read'], exp },
  { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'test-key-1' },
)

async function reloads(): Promise<number> {
  return parseMetrics(await gateway.metrics())
    .filter(
      (sample) =>
        sample.name === 'portcullis_jwks_reloads_total' && sample.labels.trigger === 'unknown_kid',
    )
    .reduce((sum, sample) => sum + sample.value, 0)
}

/** Sends FLOOD forged tokens with random kids from CONCURRENCY clients, and a genuine one now and then. */
async function flood(t: Test, target: TestGateway): Promise<void> {
  const statuses = new Map<number, number>()
  let genuineOk = 0
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < FLOOD) {
      const index = next++
      const forged = rawJwt({ alg: 'RS256', kid: randomUUID() }, { sub: 'x', exp }, 'AAAA')
      const response = await fetch(`${target.url}/agents/a1`, {
        headers: { authorization: `Bearer ${forged}` },
      })
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      if (index % 200 === 0) {
        const ok = await fetch(`${target.url}/agents/a1`, {
          headers: { authorization: `Bearer ${genuine}` },
        })
        await ok.arrayBuffer()
        if (ok.status === 200) genuineOk++
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  t.same([...statuses], [[401, FLOOD]], 'every forged token refused')
  t.equal(genuineOk, FLOOD / 200, 'the genuine token worked throughout')
  for (let index = 0; index < 50; index++) {
    const forged = rawJwt({ alg: 'RS256', kid: randomUUID() }, { sub: 'x', exp }, 'AAAA')
    refused(
      t,
      await upgrade(target, runtime, '/ws/echo', [bearer(forged)]),
      401,
      undefined,
      `upgrade ${index}`,
    )
  }
}

void t.test(`${FLOOD} random kids: at most one file read per cooldown`, async (t) => {
  t.equal(await reloads(), 0, 'none before')
  await flood(t, gateway)
  const count = await reloads()
  t.ok(count <= 1, `${count} re-read(s) of the JWKS file for ${FLOOD + 50} unknown kids`)
})

void t.test(`${FLOOD} random kids: at most one remote JWKS fetch per cooldown`, async (t) => {
  const provider = await startJwksServer(t, fixtureJwksKeys())
  const remote = await securedGateway(t, runtime, {
    auth: {
      algorithm: 'RS256',
      verification_keys: null,
      ...remoteJwksAuth(provider),
      jwks_reload_cooldown_seconds: 30,
    },
  })
  t.equal(provider.count(JWKS_PATH), 1, 'the startup fetch')
  await flood(t, remote)
  const count = provider.count(JWKS_PATH) - 1
  t.ok(count <= 1, `${count} fetch(es) of the remote JWKS for ${FLOOD + 50} unknown kids`)
})
