import t from 'tap'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { allEvents } from '../../contract/service-account-store.js'
import { metricValue } from '../../helpers/metrics.js'
import { failure, verifierFixture } from './verifier-fixture.js'

void t.test('uses: the first, then each new address, once; last_used_from', async (t) => {
  const { verify, mint, queue, store, clock } = verifierFixture({}, {})
  const { token, record } = await mint({ name: 'bot' })
  await verify(token, '198.51.100.1')
  await verify(token, '198.51.100.1')
  await verify(token, '198.51.100.2', 'curl/8.5.0')
  t.equal(queue?.depth, 2, 'a known address queues nothing')
  await queue?.flush()
  t.match((await allEvents(store)).slice(1), [
    {
      type: 'first_use',
      accountId: record.id,
      accountName: 'bot',
      actor: 'sa:bot',
      clientAddress: '198.51.100.1',
      requestId: 'test-request',
      details: { client_class: 'python' },
    },
    {
      type: 'use_from_new_address',
      clientAddress: '198.51.100.2',
      details: { client_class: 'curl' },
    },
  ])
  t.match(await store.findById(record.id), {
    lastUsedAt: clock.seconds,
    lastUsedFrom: '198.51.100.1',
  })
  clock.advance(60_000)
  await verify(token, '198.51.100.2')
  await queue?.flush()
  t.equal((await allEvents(store)).length, 3, 'a known address again: no event')
  t.match(await store.findById(record.id), { lastUsedFrom: '198.51.100.2' })
})

void t.test(
  'refusals: counted per address, reason and account, one event per window',
  async (t) => {
    const { verify, mint, queue, store, clock, registry, verifier } = verifierFixture({}, {})
    const { token, record } = await mint({ name: 'leaked' })
    await store.revoke(record.id, clock.seconds)
    verifier.revoked(record.tokenHash)
    for (let index = 0; index < 15; index += 1) await failure(verify(token, '203.0.113.5'))
    for (let index = 0; index < 3; index += 1)
      await failure(verify(mintToken().token, '203.0.113.5'))
    await failure(verify('svc_pat_short', '203.0.113.5'))
    await queue?.flush()
    t.equal((await allEvents(store)).length, 2, 'the windows are still open')
    clock.advance(60_000)
    await queue?.flush()
    t.match((await allEvents(store)).slice(2), [
      {
        type: 'refused',
        accountId: record.id,
        accountName: 'leaked',
        clientAddress: '203.0.113.5',
        details: { reason: 'revoked', count: 15, client_class: 'python' },
      },
      { type: 'refused', accountId: null, details: { reason: 'unknown', count: 3 } },
    ])
    const metrics = await registry.metrics()
    t.equal(
      metricValue(metrics, 'portcullis_audit_refused_tokens_total', { account: 'leaked' }),
      15,
    )
    t.equal(
      metricValue(metrics, 'portcullis_audit_refused_tokens_total', { account: '(unknown)' }),
      3,
    )
    t.notOk(JSON.stringify(await allEvents(store)).includes(token.slice(8)), 'never the token')
  },
)

void t.test('an address entering and leaving the throttle', async (t) => {
  const { verify, queue, store, clock } = verifierFixture({ max_failed_lookups: 3 }, {})
  for (let index = 0; index < 5; index += 1) {
    await failure(verify(mintToken().token, '2001:db8::7'))
    clock.advance(1_000)
  }
  await queue?.flush()
  const throttled = () =>
    allEvents(store).then((events) => events.filter((e) => e.type === 'throttled'))
  t.match(await throttled(), [
    {
      clientAddress: '2001:db8::7',
      details: {
        state: 'entered',
        throttle_key: '2001:db8:0:0::/64',
        failures: 3,
        window_seconds: 60,
        retry_after_seconds: 58,
      },
    },
  ])
  clock.advance(56_000)
  await queue?.flush()
  t.match((await throttled()).slice(1), [
    {
      clientAddress: '2001:db8::7',
      details: { state: 'left', ending: 'window', limited_ms: 58_000 },
    },
  ])
})
