/**
 * Audit retention through the gateway, on both stores, on a clock and timers the test moves: the
 * run at start-up and the daily one remove the events past `audit.retention_days`, and the prune
 * event each writes anchors the chain that is left, also when a run removes them in several
 * batches. On PostgreSQL, two gateways pruning at once remove the events once.
 */
import t, { type Test } from 'tap'
import type { AuditEvent } from '../../../src/service-accounts/audit-event.js'
import { verifyChain } from '../../../src/service-accounts/audit-verify.js'
import type { ServiceAccountStore } from '../../../src/service-accounts/store.js'
import { portcullis } from '../../helpers/cli.js'
import { FakeClock, FakeTimers } from '../../helpers/fake-time.js'
import { metricValue } from '../../helpers/metrics.js'
import type { ConfigInput } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'
import { ADMIN, jConfig, jwt, stack, type Stack } from '../fixtures.js'
import { mint, onStore, subsystem } from './harness.js'

const runtime = await startRuntime(t)
const DAY = 86_400_000
const HOUR = 3_600_000
const T0 = Date.UTC(2025, 0, 1)
const RETENTION = { retention_days: 30 }

/** A gateway on `clock` with timers of its own; resolves once its start-up run is over. */
async function gatewayAt(
  t: Test,
  clock: FakeClock,
  sections: ConfigInput,
): Promise<{ J: Stack; timers: FakeTimers; store: ServiceAccountStore }> {
  const timers = new FakeTimers(clock)
  const J = await stack(
    t,
    runtime,
    jConfig({}, { ...sections, audit: { ...RETENTION, ...(sections.audit as object) } }),
    {},
    {
      clock,
      timers,
    },
  )
  await waitFor(() => timers.pending === 1, 'the start-up retention run to schedule the next')
  return { J, timers, store: subsystem(J.gateway).store }
}

/** Fires the gateway's next retention run and waits until it is over (the next is scheduled). */
async function runRetention(timers: FakeTimers): Promise<void> {
  await timers.fireNext()
  await waitFor(() => timers.pending === 1, 'the retention run to finish')
}

const chainOf = (store: ServiceAccountStore): Promise<readonly AuditEvent[]> =>
  store.eventsAfter(0, 1_000)

async function assertVerifies(t: Test, store: ServiceAccountStore, through: number, by: number) {
  const report = await verifyChain((seq, limit) => store.eventsAfter(seq, limit))
  t.same(report.problems, [], 'the pruned chain verifies')
  t.match(report.pruned, { through, by }, `anchored by prune event ${by}`)
}

onStore(t, async (t, store) => {
  void t.test('the daily run and the start-up run remove what is past the retention', async (t) => {
    const clock = new FakeClock(T0)
    const section = await store.section()
    const first = await gatewayAt(t, clock, section)
    t.equal(first.timers.nextDelay, DAY, 'the next run a day later')
    t.same(await chainOf(first.store), [], 'nothing to remove: no prune event')

    const admin = await jwt([ADMIN], { sub: 'retention-admin' })
    const old = await mint(first.J, admin, { name: 'k-old' })
    clock.advance(DAY)
    const revoked = await first.J.call('DELETE', `/service-accounts/${old.id}`, { token: admin })
    t.equal(revoked.status, 204)
    clock.advance(19 * DAY)
    await mint(first.J, admin, { name: 'k-recent' })
    const written = await chainOf(first.store)
    t.same(
      written.map((event) => [event.seq, event.type, event.occurredAt]),
      [
        [1, 'mint', T0],
        [2, 'revoke', T0 + DAY],
        [3, 'mint', T0 + 20 * DAY],
      ],
      'the events carry the clock the gateway runs on',
    )

    // The run due a day after start-up, late: 31 days and an hour after the first event.
    clock.ms = T0 + 31 * DAY + HOUR
    await runRetention(first.timers)
    const afterDaily = await chainOf(first.store)
    t.match(afterDaily, [
      { seq: 3, type: 'mint', accountName: 'k-recent' },
      {
        seq: 4,
        type: 'prune',
        occurredAt: T0 + 31 * DAY + HOUR,
        actor: null,
        accountId: null,
        requestId: null,
        prevHash: written[2]?.hash,
        details: {
          removed: 2,
          first_seq: 1,
          last_seq: 2,
          last_hash: written[1]?.hash,
          cutoff: T0 + DAY + HOUR,
        },
      },
    ])
    t.equal(afterDaily.length, 2)
    await assertVerifies(t, first.store, 2, 4)
    t.match(
      first.J.gateway.logs.text,
      /"removed":2,"batches":1,"through":2,.*"msg":"audit events past the retention removed/,
      'the removal is logged',
    )
    const pruneLine = first.J.gateway.logs
      .records()
      .find((record) => record.audit === true && record.type === 'prune')
    t.match(pruneLine, { msg: 'audit: prune', seq: 4, details: { removed: 2 } }, 'the audit line')
    t.equal(
      metricValue(await first.J.gateway.metrics(), 'portcullis_audit_events_total', {
        type: 'prune',
      }),
      1,
      'counted with the other audit events',
    )
    const cli = await portcullis(t, ['tokens', 'events', '--type', 'prune', '--json'], {
      PORTCULLIS_URL: first.J.gateway.url,
      PORTCULLIS_ADMIN_TOKEN: admin,
    })
    t.equal(cli.code, 0, cli.stderr)
    t.match(
      JSON.parse(cli.stdout),
      [{ seq: 4, type: 'prune', details: { removed: 2, first_seq: 1, last_seq: 2 } }],
      'read back through the CLI (and the API under it)',
    )
    t.equal(first.timers.nextDelay, DAY)

    // A restart a month later: the start-up run removes the rest, the earlier prune event too.
    await first.J.gateway.stop()
    t.equal(first.timers.pending, 0, 'the timer is cancelled on shutdown')
    clock.ms = T0 + 62 * DAY
    const second = await gatewayAt(t, clock, {
      ...section,
      database: first.J.gateway.config.database,
    })
    const afterRestart = await chainOf(second.store)
    t.match(afterRestart, [
      {
        seq: 5,
        type: 'prune',
        prevHash: afterDaily[1]?.hash,
        details: { removed: 2, first_seq: 3, last_seq: 4, last_hash: afterDaily[1]?.hash },
      },
    ])
    t.equal(afterRestart.length, 1)
    await assertVerifies(t, second.store, 4, 5)
    await mint(second.J, admin, { name: 'k-after' })
    t.match(
      await chainOf(second.store),
      [{ seq: 5 }, { seq: 6, type: 'mint' }],
      'the chain goes on',
    )
    await assertVerifies(t, second.store, 4, 5)
  })

  void t.test(
    'a run removes audit.prune_batch_size events a transaction, each batch anchored',
    async (t) => {
      const clock = new FakeClock(T0)
      const section = await store.section()
      const {
        J,
        timers,
        store: events,
      } = await gatewayAt(t, clock, {
        ...section,
        audit: { prune_batch_size: 2 },
      })
      const admin = await jwt([ADMIN], { sub: 'retention-admin' })
      for (const name of ['k-b1', 'k-b2', 'k-b3', 'k-b4', 'k-b5']) await mint(J, admin, { name })
      clock.advance(40 * DAY)
      await mint(J, admin, { name: 'k-kept' })
      await runRetention(timers)
      t.same(
        (await chainOf(events)).map((event) => [event.seq, event.type, event.details.last_seq]),
        [
          [6, 'mint', undefined],
          [7, 'prune', 2],
          [8, 'prune', 4],
          [9, 'prune', 5],
        ],
        'three transactions of at most two, oldest first, each with its prune event',
      )
      await assertVerifies(t, events, 5, 9)
      t.match(
        J.gateway.logs.text,
        /"removed":5,"batches":3,"through":5,.*"msg":"audit events past the retention removed/,
        'one line for the run',
      )
    },
  )

  if (store.kind === 'postgres')
    void t.test('two gateways on one database prune at once: one removes', async (t) => {
      const clock = new FakeClock(T0)
      const section = await store.section()
      const a = await gatewayAt(t, clock, section)
      const b = await gatewayAt(t, clock, { ...section, database: a.J.gateway.config.database })
      const admin = await jwt([ADMIN], { sub: 'retention-admin' })
      for (const name of ['k-one', 'k-two', 'k-three']) await mint(a.J, admin, { name })
      clock.ms = T0 + 40 * DAY
      await Promise.all([runRetention(a.timers), runRetention(b.timers)])
      const events = await chainOf(b.store)
      t.same(
        events.map((event) => [event.seq, event.type]),
        [[4, 'prune']],
        'one prune event: the other run found nothing left to remove',
      )
      t.match(events[0], { details: { removed: 3, first_seq: 1, last_seq: 3 } })
      await assertVerifies(t, a.store, 3, 4)
    })
})
