import { EventEmitter } from 'node:events'
import t from 'tap'
import type { WebSocket } from 'ws'
import { CredentialWatch } from '../../../src/http/connection-watch.js'
import { jwtPrincipal, servicePrincipal } from '../surfaces/helpers.js'

/** Enough of a ws socket for the watch: close() records and emits 'close'. */
class FakeSocket extends EventEmitter {
  closed: [number, string] | undefined
  close(code: number, reason: string): void {
    if (this.closed !== undefined) return
    this.closed = [code, reason]
    this.emit('close', code, Buffer.from(reason))
  }
}

const socket = (): FakeSocket & WebSocket => new FakeSocket() as FakeSocket & WebSocket

void t.test('a revocation closes every connection of that token with 1008', async (t) => {
  const watch = new CredentialWatch()
  const bot = servicePrincipal('bot', [])
  const [one, two, other] = [socket(), socket(), socket()]
  watch.watch(one, bot)
  watch.watch(two, bot)
  watch.watch(other, servicePrincipal('other', []))
  t.equal(watch.size, 3)
  t.equal(watch.revoked('hash-bot'), 2)
  t.same(one.closed, [1008, 'credential revoked'])
  t.same(two.closed, [1008, 'credential revoked'])
  t.equal(other.closed, undefined)
  t.equal(watch.size, 1)
  t.equal(watch.revoked('hash-bot'), 0, 'forgotten once closed')
})

void t.test('stopping or closing forgets the connection', async (t) => {
  const watch = new CredentialWatch()
  const a = socket()
  const stop = watch.watch(a, servicePrincipal('a', []))
  stop()
  t.equal(watch.size, 0)
  t.equal(watch.revoked('hash-a'), 0)
  const b = socket()
  watch.watch(b, servicePrincipal('b', []))
  b.close(1000, 'bye')
  t.equal(watch.size, 0)
})

void t.test('expiry closes at expiresAt, also beyond the timer limit', async (t) => {
  const frozen = 1_000_000_000_000
  const past = socket()
  new CredentialWatch({ now: () => frozen }).watch(past, {
    ...jwtPrincipal([]),
    expiresAt: frozen / 1000 - 1,
  })
  t.same(past.closed, [1008, 'credential expired'], 'already expired: at once')
  const watch = new CredentialWatch()
  const soon = socket()
  watch.watch(soon, { ...jwtPrincipal([]), expiresAt: Date.now() / 1000 + 0.05 })
  const far = socket()
  watch.watch(far, { ...jwtPrincipal([]), expiresAt: Date.now() / 1000 + 90 * 86_400 })
  await new Promise((resolve) => setTimeout(resolve, 150))
  t.same(soon.closed, [1008, 'credential expired'])
  t.equal(far.closed, undefined, '90 days away stays open')
  far.close(1000, 'done')
})

void t.test('after a notification gap every watched token is looked up again', async (t) => {
  const valid = new Set(['hash-kept'])
  const watch = new CredentialWatch({
    revocations: {
      subscribe: () => () => undefined,
      stillValid: async (hash) => {
        if (hash === 'hash-broken') throw new Error('store down')
        return valid.has(hash)
      },
    },
  })
  const [kept, gone, broken] = [socket(), socket(), socket()]
  watch.watch(kept, servicePrincipal('kept', []))
  watch.watch(gone, servicePrincipal('gone', []))
  watch.watch(broken, servicePrincipal('broken', []))
  await watch.recheck()
  t.equal(kept.closed, undefined)
  t.same(gone.closed, [1008, 'credential revoked'])
  t.equal(broken.closed, undefined, 'a failed lookup keeps the connection')
})

void t.test(
  'a notification gap never closes a JWT connection: the store knows no JWT',
  async (t) => {
    const looked: string[] = []
    const watch = new CredentialWatch({
      revocations: {
        subscribe: () => () => undefined,
        stillValid: async (hash) => {
          looked.push(hash)
          return false
        },
      },
    })
    const jwt = socket()
    watch.watch(jwt, { ...jwtPrincipal([]), credentialHash: 'jwt-digest' })
    t.equal(watch.size, 0, 'watched for expiry only')
    await watch.recheck()
    t.equal(jwt.closed, undefined)
    t.same(looked, [], 'no store lookup for a JWT')
    jwt.close(1000, 'done')
  },
)
