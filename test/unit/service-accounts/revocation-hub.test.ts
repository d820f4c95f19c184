/** The revocation hub without a database: one feed for this replica's and the others' revocations. */
import t from 'tap'
import { createLogger } from '../../../src/logger.js'
import {
  RevocationHub,
  type RevocationSubscriber,
} from '../../../src/service-accounts/revocation-hub.js'
import { credentialDigest } from '../../../src/auth/credential.js'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { LogCapture } from '../../helpers/log-capture.js'
import { MemoryServiceAccountStore } from '../../helpers/memory-store.js'
import { FakeClock } from './verifier-fixture.js'

function recorder(): RevocationSubscriber & { events: string[] } {
  const events: string[] = []
  return {
    events,
    revoked: (hash) => void events.push(`revoked ${hash}`),
    gap: () => void events.push('gap'),
  }
}

async function started() {
  const store = new MemoryServiceAccountStore()
  const logs = new LogCapture()
  const clock = new FakeClock()
  const hub = new RevocationHub({
    store,
    logger: createLogger({ level: 'info', destination: logs }),
    clock,
  })
  await hub.start()
  return { store, hub, logs, clock }
}

void t.test('local revocations, other replicas and gaps reach every subscriber', async (t) => {
  const { store, hub } = await started()
  const [cache, sockets] = [recorder(), recorder()]
  hub.subscribe(cache)
  const stop = hub.subscribe(sockets)
  const [local, remote, later, afterStop] = [mintToken(), mintToken(), mintToken(), mintToken()]
  const heard = (minted: { token: string }) => `revoked ${credentialDigest(minted.token)}`
  hub.revoked(local.hash)
  store.announce({ id: 'id-1', tokenHash: remote.hash })
  store.signalGap()
  t.same(cache.events, [heard(local), heard(remote), 'gap'], 'stored hashes in, digests out')
  t.same(sockets.events, cache.events)
  stop()
  hub.revoked(later.hash)
  t.same(sockets.events.at(-1), 'gap', 'unsubscribed: nothing more')
  hub.stop()
  store.announce({ id: 'id-2', tokenHash: afterStop.hash })
  t.same(cache.events.at(-1), heard(later), 'stopped: the store is no longer heard')
})

void t.test('a failing subscriber is logged and does not keep others from hearing', async (t) => {
  const { hub, logs } = await started()
  const after = recorder()
  hub.subscribe({
    revoked: () => {
      throw new Error('boom')
    },
    gap: () => undefined,
  })
  hub.subscribe(after)
  const { token, hash } = mintToken()
  hub.revoked(hash)
  t.same(after.events, [`revoked ${credentialDigest(token)}`])
  t.match(logs.text, /revocation subscriber failed/)
})

void t.test('stillValid: known, not revoked, not expired', async (t) => {
  const { store, hub, clock } = await started()
  const account = async (expiresAt: number | null) => {
    const { token, hash, prefix } = mintToken()
    const record = await store.create({
      id: `id-${hash.slice(0, 8)}`,
      name: `bot-${hash.slice(0, 8)}`,
      userId: null,
      tokenHash: hash,
      tokenPrefix: prefix,
      scopes: [],
      createdAt: clock.seconds,
      expiresAt,
      createdBy: null,
    })
    return { hash: credentialDigest(token), record }
  }
  const active = await account(null)
  t.ok(await hub.stillValid(active.hash))
  t.notOk(await hub.stillValid('\u0000'.repeat(32)), 'unknown')
  const expiring = await account(clock.seconds + 10)
  t.ok(await hub.stillValid(expiring.hash))
  clock.advance(10_000)
  t.notOk(await hub.stillValid(expiring.hash), 'expired at expires_at')
  await store.revoke(active.record.id, clock.seconds)
  t.notOk(await hub.stillValid(active.hash), 'revoked')
})
