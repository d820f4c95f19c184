import { Pool } from 'undici'
import { stop } from '../lib/cleanup.js'
import { percentile } from '../lib/stats.js'
import type { RevocationResult } from '../lib/types.js'
import { startGateway, type RunningGateway } from '../systems/gateway.js'
import { prepareStore } from '../systems/store.js'
import { AUTH_PATH } from './catalog.js'
import { requestEach } from './memory.js'
import type { World } from './world.js'

const TIMEOUT_MS = 2_000
/** After this many tokens B never refused, the phase stops: propagation is broken, not slow. */
const GIVE_UP_AFTER = 5

async function status(
  pool: Pool,
  path: string,
  token: string,
  method = 'GET',
  extra: Record<string, string> = {},
): Promise<number> {
  const res = await pool.request({
    method,
    path,
    headers: { ...extra, authorization: `Bearer ${token}` },
  })
  await res.body.dump()
  return res.statusCode
}

/**
 * Two replicas on one PostgreSQL database, both caching (TTL 300 s, so only the notification can
 * tell B). Each token is revoked through A's API while B is polled back to back with it; the time
 * until B first refuses is measured from the start of the revoke request. A token B still accepts
 * after 2 s counts as timed out.
 */
export async function runRevocation(
  world: World,
  count: number,
  log: (line: string) => void,
): Promise<RevocationResult> {
  if (world.postgres === null) throw new Error('PostgreSQL is not running')
  const url = await world.postgres.createDatabase()
  const seeded = await prepareStore({ kind: 'postgres', url }, count, 'bench-revoke')
  const replicas: RunningGateway[] = []
  try {
    for (const name of ['replica-a', 'replica-b']) {
      replicas.push(
        await startGateway(
          {
            name,
            upstreamUrl: world.upstream.baseUrl,
            auth: { kind: 'security_key', key: world.securityKey },
            store: { kind: 'postgres', url },
            cacheTtlSeconds: 300,
            cacheMaxEntries: 100_000,
            accessLog: true,
          },
          world.dir,
          world.pinning.sut,
        ),
      )
    }
    const [a, b] = replicas as [RunningGateway, RunningGateway]
    const tokens = seeded.map((account) => account.token)
    const failures = await requestEach(b.baseUrl, tokens, 10)
    if (failures > 0)
      throw new Error(`${failures} tokens were refused by replica B before revocation`)
    const poolA = new Pool(a.baseUrl, { connections: 1 })
    const poolB = new Pool(b.baseUrl, { connections: 1 })
    const fromStart: number[] = []
    const fromAck: number[] = []
    let timedOut = 0
    for (const [index, account] of seeded.entries()) {
      if (timedOut >= GIVE_UP_AFTER) break
      // Each token polls as its own client (the gateway trusts 127.0.0.1's X-Forwarded-For), so
      // the refusals never add up to the failed-lookup throttle.
      const client = { 'x-forwarded-for': `127.1.${index >> 8}.${index & 255}` }
      const started = performance.now()
      let acked = Number.NaN
      const revoke = status(
        poolA,
        `/service-accounts/${account.id}`,
        world.securityKey,
        'DELETE',
      ).then((code) => {
        acked = performance.now()
        if (code >= 300) throw new Error(`revoke answered ${code}`)
      })
      let refused = Number.NaN
      while (performance.now() - started < TIMEOUT_MS) {
        const code = await status(poolB, AUTH_PATH, account.token, 'GET', client)
        // 429 also means refused: the throttle answers only for tokens that failed verification.
        if (code === 401 || code === 429) {
          refused = performance.now()
          break
        }
      }
      await revoke
      if (Number.isNaN(refused)) timedOut += 1
      else {
        fromStart.push(refused - started)
        fromAck.push(Math.max(0, refused - acked))
      }
    }
    await poolA.close()
    await poolB.close()
    const result = {
      tokens: fromStart.length + timedOut,
      p50Ms: percentile(fromStart, 50),
      p99Ms: percentile(fromStart, 99),
      maxMs: percentile(fromStart, 100),
      afterAckP99Ms: percentile(fromAck, 99),
      timedOut,
    }
    log(
      `revocation: ${count} tokens, B refused after p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms (${timedOut} timed out)`,
    )
    return result
  } finally {
    for (const replica of replicas) await stop(replica.child)
  }
}
