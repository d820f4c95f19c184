import { inspect } from 'node:util'
import t from 'tap'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { failure, verifierFixture } from './verifier-fixture.js'

void t.test('the raw token never reaches errors, logs, the principal or the store', async (t) => {
  const fixture = verifierFixture({ max_failed_lookups: 3 })
  const { verify, mint, store, clock, logs, verifier } = fixture
  const storeArguments: unknown[] = []
  const find = store.findByTokenHash.bind(store)
  store.findByTokenHash = (hash) => {
    storeArguments.push(hash)
    return find(hash)
  }
  store.touchLastUsed = async (...args) => {
    storeArguments.push(args)
    throw new Error('write failed')
  }
  const valid = await mint()
  const revoked = await mint()
  await store.revoke(revoked.record.id, clock.seconds)
  const expired = await mint({ expiresAt: clock.seconds })
  const unknown = mintToken().token
  const malformed = `${unknown.slice(0, -1)}${unknown.endsWith('A') ? 'B' : 'A'}`

  const outputs: unknown[] = [await verify(valid.token)]
  await verifier.settled()
  for (const token of [revoked.token, expired.token, unknown, malformed, unknown]) {
    outputs.push(await failure(verify(token)))
  }
  store.available = false
  outputs.push(await failure(verify(mintToken().token, '192.0.2.50')))

  const secrets = [valid.token, revoked.token, expired.token, unknown, malformed]
  const seen = [
    logs.text,
    ...outputs.map((output) => inspect(output, { depth: 10, showHidden: true })),
    ...outputs.map((output) => JSON.stringify(output)),
    JSON.stringify(storeArguments),
  ].join('\n')
  t.ok(logs.text.includes('service_account.unknown'), 'failures were logged at debug')
  t.ok(
    outputs.some((output) => inspect(output).includes('THROTTLED')),
    'the throttle was reached',
  )
  for (const secret of secrets) {
    // Logs redact `svc_pat_…`; looking for the secret tail also catches a token logged without it.
    t.notOk(seen.includes(secret.slice(16)), `no trace of ${secret.slice(0, 16)}…`)
  }
})
