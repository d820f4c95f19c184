import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { eventHash, GENESIS_HASH } from '../../src/service-accounts/audit-chain.js'
import type {
  AccountUse,
  AuditDraft,
  AuditEvent,
  EventQuery,
  NewAuditEvent,
} from '../../src/service-accounts/audit-event.js'
import { migration001 } from '../../src/service-accounts/migrations/001-service-accounts.js'
import { MIGRATIONS, type Migration } from '../../src/service-accounts/migrations/index.js'
import { verifyChain } from '../../src/service-accounts/audit-verify.js'
import type { ResourceOwners } from '../../src/service-accounts/resource-owners.js'
import {
  NameConflictError,
  StoreUnavailableError,
} from '../../src/service-accounts/store-errors.js'
import type {
  ListQuery,
  NewServiceAccount,
  RevocationEvent,
  ServiceAccountStore,
  SortColumn,
} from '../../src/service-accounts/store.js'
import { mintToken } from '../../src/service-accounts/token-format.js'
import { createLogger } from '../../src/logger.js'
import { AuditRetention } from '../../src/service-accounts/audit-retention.js'
import { FakeClock } from '../helpers/fake-time.js'

const DAY_MS = 86_400_000

/** One empty database. `open` gives another store on it (PostgreSQL) or the same one (embedded). */
export interface ContractDatabase {
  open(): Promise<ServiceAccountStore>
}

export type MakeContractDatabase = (t: Test) => Promise<ContractDatabase>

/** A database of a real store, which also records owners and can be left at an older schema. */
export interface SqlContractDatabase extends ContractDatabase {
  open(): Promise<ServiceAccountStore & ResourceOwners>
  /** Applies only these migrations, on a connection of its own closed again; before `open`. */
  migrateOnly(migrations: readonly Migration[]): Promise<void>
}

export type MakeSqlContractDatabase = (t: Test) => Promise<SqlContractDatabase>

export function newAccount(overrides: Partial<NewServiceAccount> = {}): NewServiceAccount {
  const { hash, prefix } = mintToken()
  return {
    id: randomUUID(),
    name: `sa-${randomUUID().slice(0, 8)}`,
    userId: 'alice',
    tokenHash: hash,
    tokenPrefix: prefix,
    scopes: ['agents:run', 'config:read'],
    createdAt: 1_700_000_000,
    expiresAt: 1_700_000_000 + 90 * 86_400,
    createdBy: 'alice',
    ...overrides,
  }
}

/** Resolves with the first event a store delivers, or rejects after `timeoutMs`. */
export function nextRevocation(
  store: ServiceAccountStore,
  timeoutMs = 5_000,
): { ready: Promise<unknown>; event: Promise<RevocationEvent> } {
  let resolveEvent: (event: RevocationEvent) => void = () => undefined
  const event = new Promise<RevocationEvent>((resolve, reject) => {
    resolveEvent = resolve
    setTimeout(() => reject(new Error('no revocation event')), timeoutMs).unref()
  })
  const ready = store.onRevocation((received) => resolveEvent(received))
  return { ready, event }
}

/** A draft as the API gives it: the actor and the request it came in. */
export function auditDraft(overrides: Partial<AuditDraft> = {}): AuditDraft {
  return {
    id: randomUUID(),
    occurredAt: 1_700_000_000_123,
    actorKind: 'jwt',
    actor: 'alice',
    clientAddress: '203.0.113.7',
    requestId: `req-${randomUUID().slice(0, 8)}`,
    details: {},
    ...overrides,
  }
}

export function newEvent(overrides: Partial<NewAuditEvent> = {}): NewAuditEvent {
  return {
    id: randomUUID(),
    occurredAt: 1_700_000_000_000,
    type: 'refused',
    actorKind: null,
    actor: null,
    accountId: null,
    accountName: null,
    clientAddress: '198.51.100.1',
    requestId: null,
    details: { reason: 'service_account.unknown', count: 1 },
    ...overrides,
  }
}

/** A use of `account` from `clientAddress`, as the verifier queues it. */
export function accountUse(
  account: { id: string; name: string },
  clientAddress: string,
  occurredAt = 1_700_000_000_000,
): AccountUse {
  return {
    kind: 'use',
    accountId: account.id,
    accountName: account.name,
    clientAddress,
    requestId: `req-${randomUUID().slice(0, 8)}`,
    occurredAt,
    clientClass: 'python',
  }
}

/** Every event of a store, oldest first. */
export async function allEvents(store: ServiceAccountStore): Promise<AuditEvent[]> {
  const page = await store.listEvents({ limit: 100_000, offset: 0 })
  return [...page.rows].reverse()
}

/** Fails `t` unless `events` (oldest first) form one unbroken chain from the genesis. */
export function assertChain(t: Test, events: readonly AuditEvent[]): void {
  let prevHash = GENESIS_HASH
  const broken = events.flatMap((event, index) => {
    const problems: string[] = []
    if (event.seq !== index + 1) problems.push(`seq ${event.seq} at ${index + 1}`)
    if (event.prevHash !== prevHash) problems.push(`seq ${event.seq} links elsewhere`)
    if (event.hash !== eventHash(event)) problems.push(`seq ${event.seq} hash differs`)
    prevHash = event.hash
    return problems
  })
  t.same(broken, [], `one chain of ${events.length} events`)
}

/** The one suite every ServiceAccountStore must pass. */
export function runStoreContract(t: Test, makeDatabase: MakeContractDatabase): void {
  const open = async (t: Test, db: ContractDatabase) => {
    const store = await db.open()
    t.teardown(() => store.close())
    return store
  }
  const fresh = async (t: Test) => {
    const db = await makeDatabase(t)
    const store = await open(t, db)
    await store.migrate()
    return { db, store }
  }

  void t.test('migrations apply once, also when two stores migrate at once', async (t) => {
    const db = await makeDatabase(t)
    const [a, b] = [await open(t, db), await open(t, db)]
    const results = await Promise.all([a.migrate(), b.migrate()])
    const applied = results.flatMap((result) => result.applied)
    t.same(
      applied,
      MIGRATIONS.map((migration) => migration.version),
    )
    t.same(await a.migrate(), { applied: [] }, 'idempotent')
    const created = await b.create(newAccount())
    t.same(await a.findById(created.id), created)
  })

  void t.test('create returns the stored record, found by id, hash and active name', async (t) => {
    const { store } = await fresh(t)
    const input = newAccount()
    const created = await store.create(input)
    t.same(created, { ...input, lastUsedAt: null, lastUsedFrom: null, revokedAt: null })
    t.same(await store.findById(input.id), created)
    t.same(await store.findByTokenHash(input.tokenHash), created)
    t.same(await store.findActiveByName(input.name), created)
    t.equal(await store.findById(randomUUID()), null)
    t.equal(await store.findById('not-a-uuid'), null)
    t.equal(await store.findByTokenHash('0'.repeat(64)), null)
    t.equal(await store.findActiveByName('nobody'), null)
  })

  void t.test('scopes, nulls and large times are stored exactly as given', async (t) => {
    const { store } = await fresh(t)
    const odd = newAccount({
      scopes: ['agents:run', 'agents:run', 'os:admin', 'agents:a1:run'],
      userId: null,
      createdBy: null,
      expiresAt: null,
      createdAt: 4_102_444_800,
    })
    t.same(await store.create(odd), {
      ...odd,
      lastUsedAt: null,
      lastUsedFrom: null,
      revokedAt: null,
    })
    t.same((await store.findById(odd.id))?.scopes, odd.scopes, 'order and duplicates kept')
    const empty = newAccount({ scopes: [] })
    await store.create(empty)
    t.same((await store.findById(empty.id))?.scopes, [])
  })

  void t.test('an active name is unique; of concurrent creates exactly one wins', async (t) => {
    const { db, store } = await fresh(t)
    const other = await open(t, db)
    const first = await store.create(newAccount({ name: 'dup' }))
    const clash = await store.create(newAccount({ name: 'dup' })).catch((error: unknown) => error)
    t.type(clash, NameConflictError)
    t.match(clash, { accountName: 'dup' })
    t.same(await store.findActiveByName('dup'), first)

    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) =>
        (index % 2 === 0 ? store : other).create(newAccount({ name: 'racer' })),
      ),
    )
    const winners = results.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value] : [],
    )
    t.equal(winners.length, 1, 'exactly one create succeeds')
    for (const result of results) {
      if (result.status === 'rejected') t.type(result.reason, NameConflictError)
    }
    t.equal((await store.findActiveByName('racer'))?.id, winners[0]?.id)
  })

  void t.test('a duplicate token hash is refused, but not as a name conflict', async (t) => {
    const { store } = await fresh(t)
    const first = await store.create(newAccount())
    const error = await store
      .create(newAccount({ tokenHash: first.tokenHash }))
      .catch((caught: unknown) => caught)
    t.type(error, Error)
    t.notOk(error instanceof NameConflictError)
  })

  void t.test('revoke is one-way and idempotent; a revoked name can be reused', async (t) => {
    const { store } = await fresh(t)
    const account = await store.create(newAccount({ name: 'rotating' }))
    t.equal(await store.revoke(account.id, 1_700_000_100), 'revoked')
    t.equal((await store.findById(account.id))?.revokedAt, 1_700_000_100)
    t.equal(await store.revoke(account.id, 1_700_000_200), 'already_revoked')
    t.equal((await store.findById(account.id))?.revokedAt, 1_700_000_100, 'never reset')
    t.equal(await store.revoke(randomUUID(), 1_700_000_200), 'not_found')
    t.equal(await store.revoke("x' OR '1'='1", 1_700_000_200), 'not_found')
    t.equal(await store.findActiveByName('rotating'), null)
    const next = await store.create(newAccount({ name: 'rotating' }))
    t.equal((await store.findActiveByName('rotating'))?.id, next.id)
    t.equal((await store.findByTokenHash(account.tokenHash))?.revokedAt, 1_700_000_100)
  })

  void t.test('touchLastUsed records use and never moves it backwards', async (t) => {
    const { store } = await fresh(t)
    const account = await store.create(newAccount())
    await store.touchLastUsed(account.id, 1_700_000_500, '203.0.113.9')
    t.match(await store.findById(account.id), {
      lastUsedAt: 1_700_000_500,
      lastUsedFrom: '203.0.113.9',
    })
    await store.touchLastUsed(account.id, 1_700_000_400, '198.51.100.2')
    t.match(
      await store.findById(account.id),
      { lastUsedAt: 1_700_000_500, lastUsedFrom: '203.0.113.9' },
      'the address moves with the time only',
    )
    await store.touchLastUsed(account.id, 1_700_000_600)
    t.match(
      await store.findById(account.id),
      { lastUsedAt: 1_700_000_600, lastUsedFrom: '203.0.113.9' },
      'no address given: the last one is kept',
    )
    await store.touchLastUsed(randomUUID(), 1_700_000_500)
    t.pass('an unknown id is not an error')
  })

  void t.test('list pages, sorts by whitelisted columns and filters revoked', async (t) => {
    const { store } = await fresh(t)
    const ids = await seedListFixture(store)
    const names = async (query: Partial<ListQuery>) => {
      const result = await store.list({ ...LIST_DEFAULTS, ...query })
      return { order: result.rows.map((row) => ids.get(row.id)), total: result.total }
    }
    const expected: Record<SortColumn, { asc: string; desc: string }> = {
      created_at: { asc: 'EACDB', desc: 'BDCAE' },
      name: { asc: 'DBCAE', desc: 'EACBD' },
      last_used_at: { asc: 'BEDAC', desc: 'CADEB' },
      expires_at: { asc: 'CADBE', desc: 'EBDAC' },
    }
    for (const [sortBy, orders] of Object.entries(expected) as [
      SortColumn,
      { asc: string; desc: string },
    ][]) {
      for (const sortOrder of ['asc', 'desc'] as const) {
        const { order } = await names({ sortBy, sortOrder })
        t.equal(order.join(''), orders[sortOrder], `${sortBy} ${sortOrder}`)
      }
    }
    const injected = await names({ sortBy: 'name; DROP TABLE x' as SortColumn })
    t.equal(injected.order.join(''), 'BDCAE', 'an unlisted column sorts by created_at')
    const upper = await names({ sortOrder: 'ASC' as 'asc' })
    t.equal(upper.order.join(''), 'BDCAE', 'only exactly "asc" ascends')

    const pages = await Promise.all([0, 2, 4, 6].map((offset) => names({ limit: 2, offset })))
    t.same(
      pages.map((page) => page.order.join('')),
      ['BD', 'CA', 'E', ''],
    )
    t.same(
      pages.map((page) => page.total),
      [5, 5, 5, 5],
    )
    const active = await names({ includeRevoked: false })
    t.same(active, { order: ['B', 'D', 'C', 'A'], total: 4 })

    // SA-6: an owner's accounts plus the workspace-level ones; counts are of that set.
    const of = (userId: string | null, query: Partial<ListQuery> = {}) =>
      names({ ...query, visibleTo: { userId } }).then(({ order, total }) => ({
        order: order.join(''),
        total,
      }))
    t.same(await of('alice'), { order: 'DCAE', total: 4 }, 'alice: A, D and shared C, E')
    t.same(await of('bob'), { order: 'BCE', total: 3 })
    t.same(await of('alice', { includeRevoked: false }), { order: 'DCA', total: 3 })
    t.same(await of('alice', { limit: 2, offset: 2 }), { order: 'AE', total: 4 }, 'paged')
    t.same(await of('alice', { sortBy: 'name', sortOrder: 'asc' }), { order: 'DCAE', total: 4 })
    t.same(await of(null), { order: 'CE', total: 2 }, 'no owner: the shared ones only')
    t.same(await of('nobody'), { order: 'CE', total: 2 })
    t.same(await of("x' OR '1'='1"), { order: 'CE', total: 2 }, 'a value, never SQL')
  })

  void t.test('revocations reach subscribers of every store on the database', async (t) => {
    const { db, store } = await fresh(t)
    const replica = await open(t, db)
    const first = await store.create(newAccount())
    const second = await store.create(newAccount())
    const seenByFirst: RevocationEvent[] = []
    const unsubscribe = await replica.onRevocation((event) => seenByFirst.push(event))
    const one = nextRevocation(replica)
    await one.ready
    await store.revoke(first.id, 1_700_000_100)
    t.same(await one.event, { id: first.id, tokenHash: first.tokenHash })
    unsubscribe()
    const two = nextRevocation(replica)
    await two.ready
    await store.revoke(second.id, 1_700_000_100)
    t.same(await two.event, { id: second.id, tokenHash: second.tokenHash })
    t.same(seenByFirst, [{ id: first.id, tokenHash: first.tokenHash }], 'unsubscribed')
  })

  // The event tests share one database (opening one costs seconds on PGlite): each looks at the
  // events it wrote, after `base`.
  let eventsDb: Promise<{ db: ContractDatabase; store: ServiceAccountStore }> | undefined
  const eventsDatabase = () =>
    (eventsDb ??= (async () => {
      const db = await makeDatabase(t)
      const store = await db.open()
      t.teardown(() => store.close())
      await store.migrate()
      return { db, store }
    })())

  void t.test(
    'mint and revoke write their events with the change; repeats write none',
    async (t) => {
      const { store } = await eventsDatabase()
      const base = (await allEvents(store)).length
      const input = newAccount({ name: 'audited', expiresAt: null })
      const mintDraft = auditDraft({ details: { privileged: true } })
      await store.create(input, mintDraft)
      const clash = await store
        .create(newAccount({ name: 'audited' }), auditDraft())
        .catch((error: unknown) => error)
      t.type(clash, NameConflictError)
      const revokeDraft = auditDraft({
        actorKind: 'security_key',
        actor: null,
        occurredAt: 1_700_000_100_500,
      })
      t.equal(await store.revoke(input.id, 1_700_000_100, revokeDraft), 'revoked')
      t.equal(await store.revoke(input.id, 1_700_000_200, auditDraft()), 'already_revoked')
      t.equal(await store.revoke(randomUUID(), 1_700_000_200, auditDraft()), 'not_found')
      const events = await allEvents(store)
      t.same(
        events.slice(base).map((event) => ({ ...event, prevHash: undefined, hash: undefined })),
        [
          {
            ...mintDraft,
            seq: base + 1,
            type: 'mint',
            accountId: input.id,
            accountName: 'audited',
            details: { scopes: input.scopes, owner: 'alice', expires_at: null, privileged: true },
            prevHash: undefined,
            hash: undefined,
          },
          {
            ...revokeDraft,
            seq: base + 2,
            type: 'revoke',
            accountId: input.id,
            accountName: 'audited',
            details: { revoked_at: 1_700_000_100 },
            prevHash: undefined,
            hash: undefined,
          },
        ],
        'one mint (none for the refused create), one revoke (none for the repeat)',
      )
      assertChain(t, events)
      const written = JSON.stringify(events)
      t.notOk(written.includes(input.tokenHash), 'never the token hash')
      t.notOk(written.includes(input.tokenPrefix), 'never the token prefix')

      const direct = await store.create(newAccount({ createdAt: 1_700_000_300 }))
      await store.revoke(direct.id, 1_700_000_400)
      const [mint, revoke] = (await allEvents(store)).slice(base + 2)
      t.match(mint, { type: 'mint', occurredAt: 1_700_000_300_000, actor: null, actorKind: null })
      t.match(revoke, { type: 'revoke', occurredAt: 1_700_000_400_000, requestId: null })
    },
  )

  void t.test('appends from two stores on one database form one chain', async (t) => {
    const { db, store } = await eventsDatabase()
    // Open until the suite ends: on PGlite it is the shared store itself.
    const other = await db.open()
    t.teardown(() => (other === store ? undefined : other.close()))
    const base = (await allEvents(store)).length
    const odd = {
      z: 'ü-ñ "quoted" \\ back',
      a: [1, -2, true, null, { y: 'x', b: [] }],
      m: { nested: { deep: 9_007_199_254_740_991 } },
    }
    const stored = await store.appendEvents([newEvent({ details: odd })])
    t.equal(stored.length, 1)
    t.same(stored[0]?.details, odd)
    t.same(await store.appendEvents([]), [], 'nothing to append')
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 === 0 ? store : other).appendEvents([
          newEvent({ requestId: `r${index}-a` }),
          newEvent({ requestId: `r${index}-b` }),
        ]),
      ),
    )
    await store.create(newAccount())
    const all = await allEvents(other)
    assertChain(t, all)
    const events = all.slice(base)
    t.equal(events.length, 22)
    t.same(
      (await store.eventsAfter(base + 1, 3)).map((event) => event.seq - base),
      [2, 3, 4],
      'eventsAfter reads the chain in order',
    )
    t.same(events[0]?.details, odd, 'details come back exactly, whatever order keys are kept in')
    for (let index = 0; index < 10; index += 1) {
      const a = events.findIndex((event) => event.requestId === `r${index}-a`)
      t.equal(events[a + 1]?.requestId, `r${index}-b`, 'a batch stays together, in order')
    }
  })

  void t.test('listEvents filters, counts and pages newest first', async (t) => {
    const { store } = await eventsDatabase()
    const base = (await allEvents(store)).length
    const mine = await store.create(newAccount({ userId: 'alice' }), auditDraft({ occurredAt: 10 }))
    const bobs = await store.create(
      newAccount({ userId: 'bob' }),
      auditDraft({ actor: 'bob', occurredAt: 20 }),
    )
    const shared = await store.create(
      newAccount({ userId: null }),
      auditDraft({ actor: null, actorKind: 'security_key', occurredAt: 30 }),
    )
    await store.appendEvents([
      newEvent({ occurredAt: 40, accountId: mine.id, accountName: mine.name }),
      newEvent({ occurredAt: 50 }),
      newEvent({ occurredAt: 60, type: 'throttled', actor: 'alice', actorKind: 'jwt' }),
    ])
    await store.revoke(bobs.id, 70, auditDraft({ actor: 'bob', occurredAt: 70_000 }))
    // The earlier tests' events are from long after `until`.
    const seqs = async (query: Partial<EventQuery>) => {
      const page = await store.listEvents({ limit: 100, offset: 0, until: 100_000, ...query })
      return { seqs: page.rows.map((event) => event.seq - base), total: page.total }
    }
    t.same(await seqs({}), { seqs: [7, 6, 5, 4, 3, 2, 1], total: 7 }, 'newest first')
    t.same(await seqs({ limit: 3, offset: 3 }), { seqs: [4, 3, 2], total: 7 }, 'paged')
    t.same(await seqs({ types: ['mint', 'revoke'] }), { seqs: [7, 3, 2, 1], total: 4 })
    t.same(await seqs({ types: [] }), { seqs: [], total: 0 })
    t.same(await seqs({ accountId: mine.id }), { seqs: [4, 1], total: 2 })
    t.same(await seqs({ accountName: mine.name }), { seqs: [4, 1], total: 2 })
    t.same(await seqs({ accountName: 'nobody' }), { seqs: [], total: 0 })
    t.same(await seqs({ since: 30, until: 60 }), { seqs: [5, 4, 3], total: 3 }, '[since, until)')
    t.same(await seqs({ actor: 'bob' }), { seqs: [7, 2], total: 2 })
    t.same(await seqs({ actor: "x' OR '1'='1" }), { seqs: [], total: 0 }, 'a value, never SQL')
    t.same(
      await seqs({ visibleTo: { userId: 'alice' } }),
      { seqs: [6, 4, 3, 1], total: 4 },
      "alice: her account's, the shared one's, and the account-less event she caused",
    )
    t.same(await seqs({ visibleTo: { userId: 'bob' } }), { seqs: [7, 3, 2], total: 3 })
    t.same(await seqs({ visibleTo: { userId: null } }), { seqs: [3], total: 1 }, 'shared only')
    t.same(
      await seqs({ visibleTo: { userId: 'alice' }, types: ['mint'], limit: 1 }),
      { seqs: [3], total: 2 },
      'filters combine',
    )
    t.equal(shared.userId, null)
  })

  void t.test('a use from an address the account was not known at is recorded once', async (t) => {
    const { store } = await eventsDatabase()
    const base = (await allEvents(store)).length
    const account = await store.create(newAccount())
    const other = await store.create(newAccount())
    const types = async (
      events: readonly NewAuditEvent[],
      uses: readonly AccountUse[],
    ): Promise<string[]> =>
      (await store.appendEvents(events, uses)).map(
        (event) => `${event.type} ${event.clientAddress}`,
      )
    const first = accountUse(account, '203.0.113.1', 1_700_000_000_500)
    const [firstEvent] = await store.appendEvents([], [first])
    t.match(firstEvent, {
      type: 'first_use',
      actorKind: 'service_account',
      actor: `sa:${account.name}`,
      accountId: account.id,
      accountName: account.name,
      clientAddress: '203.0.113.1',
      requestId: first.requestId,
      occurredAt: 1_700_000_000_500,
      details: { client_class: 'python' },
    })
    t.same(await types([], [accountUse(account, '203.0.113.1')]), [], 'a known address: nothing')
    t.same(
      await types(
        [newEvent({ clientAddress: 'refused-first' })],
        [
          accountUse(account, '203.0.113.2'),
          accountUse(account, '203.0.113.2'),
          accountUse(other, '203.0.113.2'),
        ],
      ),
      ['refused refused-first', 'use_from_new_address 203.0.113.2', 'first_use 203.0.113.2'],
      'events first, then each new pair once, per account',
    )
    const used = await store.create(newAccount())
    await store.touchLastUsed(used.id, 1_699_999_990, '198.51.100.7')
    t.same(
      await types([], [accountUse(used, '198.51.100.8', 1_700_000_000_000)]),
      ['use_from_new_address 198.51.100.8'],
      'used before addresses were recorded: not a first use',
    )
    assertChain(t, await allEvents(store))
    t.equal((await allEvents(store)).length, base + 3 + 5)
  })

  void t.test(
    'an account remembers its addresses seen most recently, a bounded number',
    async (t) => {
      const { store } = await eventsDatabase()
      const account = await store.create(newAccount())
      const addresses = Array.from({ length: 21 }, (_, index) => `192.0.2.${index}`)
      const written = await store.appendEvents(
        [],
        addresses.map((address, index) => accountUse(account, address, 1_000 + index)),
      )
      t.equal(written.length, 21, 'each one new')
      t.same(
        await store.appendEvents([], [accountUse(account, '192.0.2.20', 5_000)]),
        [],
        'the newest is remembered',
      )
      t.match(
        await store.appendEvents([], [accountUse(account, '192.0.2.0', 6_000)]),
        [{ type: 'use_from_new_address', clientAddress: '192.0.2.0' }],
        'past 20 the least recently seen was forgotten: new again',
      )
    },
  )

  void t.test('a mint of a name revoked within the window is also a rotation', async (t) => {
    const { store } = await eventsDatabase()
    const name = `rotated-${randomUUID().slice(0, 8)}`
    const old = await store.create(newAccount({ name, createdAt: 1_700_000_000 }))
    const revokeDraft = auditDraft()
    await store.revoke(old.id, 1_700_001_000, revokeDraft)
    const mintDraft = auditDraft({ actor: 'bob', occurredAt: 1_700_001_060_000 })
    const next = await store.create(newAccount({ name, createdAt: 1_700_001_060 }), mintDraft)
    const events = (await allEvents(store)).filter((event) => event.accountName === name)
    t.same(
      events.map((event) => event.type),
      ['mint', 'revoke', 'mint', 'rotation'],
    )
    t.match(events[3], {
      accountId: next.id,
      actor: 'bob',
      requestId: mintDraft.requestId,
      clientAddress: mintDraft.clientAddress,
      occurredAt: mintDraft.occurredAt,
      details: {
        revoked_account_id: old.id,
        revoke_event_id: revokeDraft.id,
        mint_event_id: mintDraft.id,
        revoked_at: 1_700_001_000,
        seconds_between: 60,
      },
    })
    await store.revoke(next.id, 1_700_001_100)
    await store.create(newAccount({ name, createdAt: 1_700_001_100 + 3_601 }))
    const late = (await allEvents(store)).filter((event) => event.accountName === name)
    t.same(
      late.slice(4).map((event) => event.type),
      ['revoke', 'mint'],
      'past the window (3600 s by default): a mint only',
    )
  })

  void t.test(
    'pruneEvents removes the oldest events before the cutoff, a prefix only, and anchors the rest',
    async (t) => {
      const { db, store } = await fresh(t)
      const other = await open(t, db)
      const prune = (cutoff: number, occurredAt: number, by = store) =>
        by.pruneEvents(cutoff, { id: randomUUID(), occurredAt }, 1_000)
      t.equal(await prune(1_000_000, 1_000), null, 'an empty chain: nothing to remove')
      const written = await store.appendEvents(
        [100, 200, 300, 250, 400].map((occurredAt) => newEvent({ occurredAt })),
      )
      t.equal(await prune(100, 1_000), null, 'nothing before the cutoff: nothing written')

      const first = await prune(150, 1_000)
      t.same(first, {
        seq: 6,
        id: first?.id,
        occurredAt: 1_000,
        type: 'prune',
        actorKind: null,
        actor: null,
        accountId: null,
        accountName: null,
        clientAddress: null,
        requestId: null,
        details: {
          removed: 1,
          first_seq: 1,
          last_seq: 1,
          last_hash: written[0]?.hash,
          cutoff: 150,
        },
        prevHash: written[4]?.hash,
        hash: first === null ? undefined : eventHash(first),
      })
      t.same(
        (await store.eventsAfter(0, 100)).map((event) => event.seq),
        [2, 3, 4, 5, 6],
      )
      // Event 4 (250) is older than the cutoff but comes after event 3 (300), which is not.
      t.match(await prune(280, 2_000, other), {
        seq: 7,
        details: { removed: 1, first_seq: 2, last_seq: 2, last_hash: written[1]?.hash },
      })
      t.same(
        (await store.eventsAfter(0, 100)).map((event) => event.seq),
        [3, 4, 5, 6, 7],
        'only a prefix is removed',
      )
      const verified = (of: ServiceAccountStore) =>
        verifyChain((seq, limit) => of.eventsAfter(seq, limit))
      t.match(await verified(store), { pruned: { through: 2, by: 7, cutoff: 280 } })
      t.same((await verified(store)).problems, [])

      const account = await store.create(newAccount())
      t.match(await allEvents(store), [{ seq: 3 }, {}, {}, {}, {}, { seq: 8, type: 'mint' }])
      t.equal((await store.findById(account.id))?.id, account.id)

      const last = (await store.eventsAfter(7, 1))[0]
      const all = await prune(1_800_000_000_000, 3_000)
      t.match(all, {
        seq: 9,
        prevHash: last?.hash,
        details: { removed: 6, first_seq: 3, last_seq: 8, last_hash: last?.hash },
      })
      t.same(await store.eventsAfter(0, 100), [all], 'everything due: the prune event is left')
      t.match(await verified(store), { events: 1, pruned: { through: 8, by: 9 } })
      t.same((await verified(store)).problems, [])

      await store.appendEvents([newEvent({ occurredAt: 4_000 }), newEvent({ occurredAt: 5_000 })])
      const concurrent = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          prune(4_500, 6_000, index % 2 === 0 ? store : other),
        ),
      )
      const pruned = concurrent.filter((event) => event !== null)
      t.equal(pruned.length, 1, 'of concurrent prunes one removes, the others find nothing due')
      t.match(pruned[0], { seq: 12, details: { removed: 2, first_seq: 9, last_seq: 10 } })
      t.same(
        (await other.eventsAfter(0, 100)).map((event) => [event.seq, event.type]),
        [
          [11, 'refused'],
          [12, 'prune'],
        ],
      )
      t.match(await verified(other), { pruned: { through: 10, by: 12 } })
      t.same((await verified(other)).problems, [])
    },
  )

  void t.test(
    'pruneEvents removes at most limit events a call; each call leaves a trail that verifies',
    async (t) => {
      const { store } = await fresh(t)
      const written = await store.appendEvents(
        [100, 110, 120, 130, 140, 150, 160, 500].map((occurredAt) => newEvent({ occurredAt })),
      )
      const batch = () => store.pruneEvents(400, { id: randomUUID(), occurredAt: 1_000 }, 3)
      const verified = async (through: number, by: number) => {
        const report = await verifyChain((seq, limit) => store.eventsAfter(seq, limit))
        t.same(report.problems, [], `verifies after the batch of prune event ${by}`)
        t.match(report.pruned, { through, by, cutoff: 400 })
      }
      t.match(await batch(), {
        seq: 9,
        details: {
          removed: 3,
          first_seq: 1,
          last_seq: 3,
          last_hash: written[2]?.hash,
          cutoff: 400,
        },
      })
      await verified(3, 9)
      t.match(await batch(), {
        seq: 10,
        details: { removed: 3, first_seq: 4, last_seq: 6, last_hash: written[5]?.hash },
      })
      await verified(6, 10)
      t.match(
        await batch(),
        {
          seq: 11,
          details: { removed: 1, first_seq: 7, last_seq: 7, last_hash: written[6]?.hash },
        },
        'the last batch stops at the first event not due',
      )
      await verified(7, 11)
      t.equal(await batch(), null, 'nothing left to remove: nothing written')
      t.same(
        (await store.eventsAfter(0, 100)).map((event) => [event.seq, event.type]),
        [
          [8, 'refused'],
          [9, 'prune'],
          [10, 'prune'],
          [11, 'prune'],
        ],
      )
    },
  )

  void t.test(
    'retention removes in batches: writes go on between them, and a stop between batches leaves a trail that verifies',
    async (t) => {
      const { store } = await fresh(t)
      await store.appendEvents(
        Array.from({ length: 10 }, (_, index) => newEvent({ occurredAt: 1_000 + index })),
      )
      const clock = new FakeClock(10 * DAY_MS)
      const batches: AuditEvent[] = []
      let betweenBatches: (() => Promise<unknown>) | undefined
      /** The store, recording each batch and running `betweenBatches` after the first. */
      const hooked: Pick<ServiceAccountStore, 'pruneEvents'> = {
        pruneEvents: async (cutoff, draft, limit) => {
          const event = await store.pruneEvents(cutoff, draft, limit)
          if (event !== null) batches.push(event)
          if (batches.length > 0) await betweenBatches?.()
          return event
        },
      }
      const retention = (): { runner: AuditRetention; scheduled: Promise<number> } => {
        let resolveScheduled: (delay: number) => void = () => undefined
        const scheduled = new Promise<number>((resolve) => {
          resolveScheduled = resolve
        })
        const runner = new AuditRetention({
          store: hooked,
          retentionDays: 1,
          batchSize: 3,
          clock,
          timers: {
            set: (_callback, ms) => {
              resolveScheduled(ms)
              return { cancel: () => undefined }
            },
          },
          logger: createLogger({ level: 'silent' }),
        })
        return { runner, scheduled }
      }
      const verified = async () => {
        const report = await verifyChain((seq, limit) => store.eventsAfter(seq, limit))
        t.same(report.problems, [], 'the trail verifies')
        return report
      }

      // A run stopped after its second batch: the stop waits for that batch, starts no other.
      const first = retention()
      let stopAsked: () => void = () => undefined
      const asked = new Promise<void>((resolve) => {
        stopAsked = resolve
      })
      betweenBatches = async () => {
        if (batches.length !== 2) return
        void first.runner.stop()
        stopAsked()
      }
      first.runner.start()
      await Promise.race([asked, first.scheduled])
      await first.runner.stop()
      t.same(
        batches.map((event) => [event.seq, event.details.first_seq, event.details.last_seq]),
        [
          [11, 1, 3],
          [12, 4, 6],
        ],
        'two batches of three, oldest first, then stopped',
      )
      t.match(await verified(), { pruned: { through: 6, by: 12 } }, 'anchored by the last batch')
      t.same(
        (await store.eventsAfter(0, 100)).map((event) => event.seq),
        [7, 8, 9, 10, 11, 12],
        'the rest is still there',
      )

      // The next run removes the rest; an audit write issued while it runs is written between
      // two of its batches, under the chain lock the run releases after each.
      batches.length = 0
      let write: Promise<readonly AuditEvent[]> | undefined
      betweenBatches = async () => {
        write ??= store.appendEvents([newEvent({ occurredAt: clock.now() })])
        await write
      }
      const second = retention()
      second.runner.start()
      t.equal(await second.scheduled, DAY_MS, 'the run is over: the next is due a day later')
      const [written] = (await write) ?? []
      t.same(
        batches.map((event) => [event.seq, event.details.removed]),
        [
          [13, 3],
          [15, 1],
        ],
        'the rest in two batches',
      )
      t.equal(written?.seq, 14, 'the write went in between the batches, before the run ended')
      t.match(await verified(), { pruned: { through: 10, by: 15 } })
      t.same(
        (await store.eventsAfter(0, 100)).map((event) => [event.seq, event.type]),
        [
          [11, 'prune'],
          [12, 'prune'],
          [13, 'prune'],
          [14, 'refused'],
          [15, 'prune'],
        ],
      )
    },
  )

  void t.test('ping answers; close is idempotent and later calls are unavailable', async (t) => {
    const { store } = await fresh(t)
    await store.ping()
    await store.close()
    await store.close()
    await t.rejects(store.findById(randomUUID()), StoreUnavailableError)
  })
}

const LIST_DEFAULTS: ListQuery = {
  limit: 20,
  offset: 0,
  sortBy: 'created_at',
  sortOrder: 'desc',
  includeRevoked: true,
}

/**
 * Five accounts with ties and nulls. Names compare bytewise: `a-c` < `a_b` < `ab`. E is revoked.
 * A and D are alice's, B bob's, C and E workspace-level.
 * Returns id → letter.
 */
async function seedListFixture(store: ServiceAccountStore): Promise<Map<string, string>> {
  const rows = [
    {
      letter: 'A',
      name: 'delta',
      createdAt: 100,
      expiresAt: 500,
      lastUsedAt: null,
      userId: 'alice',
    },
    { letter: 'B', name: 'a_b', createdAt: 300, expiresAt: null, lastUsedAt: 50, userId: 'bob' },
    { letter: 'C', name: 'ab', createdAt: 200, expiresAt: 400, lastUsedAt: null, userId: null },
    { letter: 'D', name: 'a-c', createdAt: 200, expiresAt: 500, lastUsedAt: 70, userId: 'alice' },
    { letter: 'E', name: 'echo', createdAt: 50, expiresAt: null, lastUsedAt: 60, userId: null },
  ]
  const ids = new Map<string, string>()
  for (const [index, row] of rows.entries()) {
    // Ids ascend with the letter, so id tie-breaks are predictable.
    const id = `00000000-0000-4000-8000-00000000000${index + 1}`
    ids.set(id, row.letter)
    await store.create(
      newAccount({
        id,
        name: row.name,
        createdAt: row.createdAt,
        expiresAt: row.expiresAt,
        userId: row.userId,
      }),
    )
    if (row.lastUsedAt !== null) await store.touchLastUsed(id, row.lastUsedAt)
  }
  await store.revoke('00000000-0000-4000-8000-000000000005', 1_000)
  return ids
}

/** The suite of the owner records (OWN-1), for the SQL store on both drivers. */
export function runResourceOwnersContract(t: Test, makeDatabase: MakeSqlContractDatabase): void {
  const open = async (t: Test, db: SqlContractDatabase) => {
    const store = await db.open()
    t.teardown(() => store.close())
    return store
  }
  // Opening a database costs seconds (PGlite), so the tests share one, each with ids of its own;
  // the test that closes it comes last.
  let shared:
    Promise<{ db: SqlContractDatabase; store: ServiceAccountStore & ResourceOwners }> | undefined
  const database = () =>
    (shared ??= (async () => {
      const db = await makeDatabase(t)
      const store = await open(t, db)
      await store.migrate()
      return { db, store }
    })())
  /** Another store on the shared database (the same one for PGlite), open until the suite ends. */
  const another = (db: SqlContractDatabase) => open(t, db)

  void t.test('record keeps the first owner; kinds are apart; forget drops a record', async (t) => {
    const { store } = await database()
    t.same(await store.ownerOf('component', 'c1'), { known: false }, 'unknown before')
    t.equal(await store.record('component', 'c1', 'alice', 1_700_000_000), 'alice')
    t.same(await store.ownerOf('component', 'c1'), { known: true, owner: 'alice' })
    t.equal(await store.record('component', 'c1', 'bob', 1_700_000_100), 'alice', 'first wins')
    t.equal(await store.record('component', 'c1', null, 1_700_000_100), 'alice')
    t.same(await store.ownerOf('component', 'c1'), { known: true, owner: 'alice' })

    t.equal(await store.record('schedule', 's1', null, 1_700_000_000), null, 'workspace-level')
    t.same(await store.ownerOf('schedule', 's1'), { known: true, owner: null })
    t.equal(await store.record('schedule', 's1', 'mallory', 1_700_000_100), null, 'stays shared')

    await store.record('knowledge_content', 'c1', 'bob', 1)
    t.same(await store.ownerOf('knowledge_content', 'c1'), { known: true, owner: 'bob' })
    t.same(await store.ownerOf('component', 'c1'), { known: true, owner: 'alice' }, 'kinds apart')
    t.same(await store.ownerOf('schedule', 'c1'), { known: false })

    t.equal(await store.forget('component', 'c1'), true)
    t.equal(await store.forget('component', 'c1'), false, 'nothing left to forget')
    t.same(await store.ownerOf('component', 'c1'), { known: false })
    t.same(await store.ownerOf('knowledge_content', 'c1'), { known: true, owner: 'bob' })
    t.equal(await store.record('component', 'c1', 'carol', 2), 'carol', 'recorded anew')
  })

  void t.test('ownersOf answers many ids at once, the recorded ones only', async (t) => {
    const { store } = await database()
    const odd = ["it's", 'a,b', '{"x":1}', 'ü-ñ', ' spaced ', '']
    for (const [index, id] of odd.entries()) await store.record('component', id, `u${index}`, 1)
    await store.record('component', 'shared', null, 1)
    await store.record('schedule', 'other-kind', 'carol', 1)
    const found = await store.ownersOf('component', [
      ...odd,
      'shared',
      'unknown',
      'other-kind',
      "it's",
    ])
    t.same(
      [...found.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
      [...odd.map((id, index) => [id, `u${index}`] as const), ['shared', null] as const].sort(
        ([a], [b]) => (a < b ? -1 : 1),
      ),
      'ids taken literally; unknown ids and other kinds absent; duplicates harmless',
    )
    t.same([...(await store.ownersOf('component', [])).entries()], [], 'no ids, no rows')
    const many = Array.from({ length: 2_000 }, (_, index) => `bulk-${index}`)
    for (const id of many.slice(0, 5)) await store.record('component', id, 'dave', 1)
    const page = await store.ownersOf('component', many)
    t.same([...page.keys()].sort(), many.slice(0, 5).sort(), 'a long list in one query')
  })

  void t.test('of concurrent records of one row, from two stores, one owner wins', async (t) => {
    const { db, store } = await database()
    const other = await another(db)
    const owners = Array.from({ length: 12 }, (_, index) => `user-${index}`)
    const results = await Promise.all(
      owners.map((owner, index) =>
        (index % 2 === 0 ? store : other).record('component', 'raced', owner, 1),
      ),
    )
    const winner = results[0] ?? null
    t.ok(winner !== null && owners.includes(winner), 'one of the writers')
    t.same(new Set(results), new Set([winner]), 'every writer is told the same owner')
    t.same(await other.ownerOf('component', 'raced'), { known: true, owner: winner })
  })

  void t.test('a store at migration 001 upgrades, its accounts kept', async (t) => {
    const db = await makeDatabase(t)
    const account = newAccount()
    // An account a version before the audit trail wrote, straight into the 001 table.
    const written: Migration = {
      version: '001-fixture',
      name: 'fixture',
      statements: [
        `INSERT INTO portcullis_service_accounts
           (id, name, user_id, token_hash, token_prefix, scopes, created_at, expires_at, created_by)
         VALUES ('${account.id}', '${account.name}', 'alice', '${account.tokenHash}',
           '${account.tokenPrefix}', '${JSON.stringify(account.scopes)}', ${account.createdAt},
           ${account.expiresAt}, 'alice')`,
      ],
    }
    await db.migrateOnly([migration001, written])
    const store = await open(t, db)
    await t.rejects(store.ownerOf('component', 'c1'), 'no owner table before 002')
    await t.rejects(store.create(newAccount()), 'no account without its event: none before 003')
    t.same(
      await store.migrate(),
      { applied: MIGRATIONS.slice(1).map((migration) => migration.version) },
      'only the newer migrations run',
    )
    t.same(await store.findById(account.id), {
      ...account,
      lastUsedAt: null,
      lastUsedFrom: null,
      revokedAt: null,
    })
    t.equal(await store.revoke(account.id, 1_700_000_100), 'revoked', 'the old account is audited')
    t.match(await allEvents(store), [{ type: 'revoke', accountId: account.id }])
    t.equal(await store.record('component', 'c1', 'alice', 1), 'alice')
    t.same(await store.migrate(), { applied: [] }, 'idempotent')
  })

  void t.test('a closed store is unavailable for owners too', async (t) => {
    const { store } = await database()
    await store.close()
    await t.rejects(store.record('component', 'c', 'alice', 1), StoreUnavailableError)
    await t.rejects(store.ownerOf('component', 'c'), StoreUnavailableError)
    await t.rejects(store.ownersOf('component', ['c']), StoreUnavailableError)
    await t.rejects(store.forget('component', 'c'), StoreUnavailableError)
  })
}
