import t, { type Test } from 'tap'
import type { Config } from '../../../src/config/schema.js'
import { createLogger } from '../../../src/logger.js'
import { createServiceAccountStore } from '../../../src/service-accounts/create-store.js'
import { runMigrations } from '../../../src/service-accounts/migrate.js'
import { PgSqlClient } from '../../../src/service-accounts/pg-client.js'
import type { ResourceOwners } from '../../../src/service-accounts/resource-owners.js'
import { ServiceAccountVerifier } from '../../../src/service-accounts/service-account-verifier.js'
import { StoreUnavailableError } from '../../../src/service-accounts/store-errors.js'
import type { ServiceAccountStore } from '../../../src/service-accounts/store.js'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import {
  newAccount,
  nextRevocation,
  runResourceOwnersContract,
  runStoreContract,
  type SqlContractDatabase,
} from '../../contract/service-account-store.js'
import { LogCapture } from '../../helpers/log-capture.js'
import { waitFor, within } from '../../helpers/wait.js'
import {
  postgresSkipReason,
  startPostgres,
  type PostgresServer,
  type Teardown,
} from '../../helpers/postgres.js'

const skip = postgresSkipReason()
const TIMEOUT_MS = 1_000

function databaseConfig(url: string): Config['database'] {
  return {
    url,
    data_dir: 'unused',
    pool_max: 4,
    connect_timeout_ms: TIMEOUT_MS,
    query_timeout_ms: TIMEOUT_MS,
  }
}

async function openStore(
  t: Teardown,
  url: string,
  logs = new LogCapture(),
): Promise<ServiceAccountStore & ResourceOwners> {
  const logger = createLogger({ level: 'warn', destination: logs })
  const store = await createServiceAccountStore(databaseConfig(url), logger)
  t.teardown(() => store.close())
  return store
}

async function elapsed<T>(promise: Promise<T>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now()
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  return { ms: performance.now() - started, error }
}

// One server for the file; the groups run in order and each leaves it running.
void t.test('PostgreSQL', { skip }, async (t) => {
  const server = await startPostgres(t)
  const database = async (t: Test): Promise<SqlContractDatabase> => {
    const url = await server.createDatabase()
    return {
      open: () => openStore(t, url),
      async migrateOnly(migrations) {
        const logger = createLogger({ level: 'warn', destination: new LogCapture() })
        const client = new PgSqlClient({ ...databaseConfig(url), url }, logger)
        try {
          await runMigrations(client, migrations)
        } finally {
          await client.close()
        }
      },
    }
  }
  void t.test('the store contract', async (t) => {
    runStoreContract(t, database)
  })
  void t.test('the owner records', async (t) => {
    runResourceOwnersContract(t, database)
  })
  void t.test('outages are bounded and reported as unavailable', (t) => outages(t, server))
  void t.test('the LISTEN connection comes back after a restart', (t) => relisten(t, server))
  void t.test('a transaction whose connection the server ends fails; nothing crashes', (t) =>
    terminatedTransaction(t, server),
  )
})

/**
 * The server ending a connection in the middle of a transaction (pg_terminate_backend, a shutdown:
 * 57P01) is an 'error' event on the checked-out client, which the pool listens for only while the
 * client is idle: unheard, it was an uncaught exception that ended the process.
 */
async function terminatedTransaction(t: Test, server: PostgresServer): Promise<void> {
  const url = await server.createDatabase()
  const logger = createLogger({ level: 'warn', destination: new LogCapture() })
  const client = new PgSqlClient({ ...databaseConfig(url), url }, logger)
  t.teardown(() => client.close())
  const uncaught: unknown[] = []
  const onUncaught = (error: unknown): void => {
    uncaught.push(error)
  }
  process.prependListener('uncaughtException', onUncaught)
  t.teardown(() => {
    process.removeListener('uncaughtException', onUncaught)
  })
  let backend = 0
  let terminated!: () => void
  const afterTermination = new Promise<void>((resolve) => (terminated = resolve))
  const outcome = client
    .transaction(async (tx) => {
      const [row] = await tx.query('SELECT pg_backend_pid() AS pid')
      backend = Number(row?.pid)
      await afterTermination
      return tx.query('SELECT 1')
    })
    .then(
      () => undefined,
      (error: unknown) => error,
    )
  await waitFor(() => backend !== 0, 'the transaction to begin')
  await client.query('SELECT pg_terminate_backend($1)', [backend])
  // Gone from the server's view once it has sent its FATAL message and closed the socket; the
  // checks that follow are further round trips, after which that message has been read.
  const running = async (): Promise<boolean> =>
    (
      await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [
        backend,
      ])
    )[0]?.n !== 0
  await within(
    (async () => {
      while (await running()) await new Promise((resolve) => setTimeout(resolve, 10))
    })(),
    'the terminated backend to exit',
  )
  terminated()
  t.type(
    await outcome,
    StoreUnavailableError,
    'the transaction fails as the store being unavailable',
  )
  t.same(uncaught, [], 'no uncaught exception')
  t.same(
    await client.query('SELECT 1 AS one'),
    [{ one: 1 }],
    'the next query gets a new connection',
  )
}

async function outages(t: Test, server: PostgresServer): Promise<void> {
  const logs = new LogCapture()
  const store = await openStore(t, await server.createDatabase(), logs)
  await store.migrate()
  const account = await store.create(newAccount())

  await t.test('a stopped server fails fast', async (t) => {
    await server.stop()
    const lookup = await elapsed(store.findByTokenHash(account.tokenHash))
    t.type(lookup.error, StoreUnavailableError)
    t.ok(lookup.ms < 2 * TIMEOUT_MS + 500, `failed in ${Math.round(lookup.ms)} ms`)
    await t.rejects(store.revoke(account.id, 1), StoreUnavailableError, 'transactions too')
    await t.rejects(store.ping(), StoreUnavailableError)
    await server.start()
    t.same(
      await store.findById(account.id),
      { ...account, lastUsedAt: null, revokedAt: null },
      'recovers',
    )
  })

  await t.test('a hung server times out instead of hanging', async (t) => {
    server.pause()
    try {
      const lookup = await elapsed(store.findByTokenHash(account.tokenHash))
      t.type(lookup.error, StoreUnavailableError)
      t.ok(lookup.ms >= TIMEOUT_MS * 0.9, `waited the query timeout (${Math.round(lookup.ms)} ms)`)
      t.ok(lookup.ms < 2 * TIMEOUT_MS + 1_000, 'and no longer than connect + query timeouts')
      const connect = await elapsed(store.findById(account.id))
      t.type(connect.error, StoreUnavailableError, 'a new connection times out too')
      t.ok(connect.ms < 2 * TIMEOUT_MS + 1_000, `in ${Math.round(connect.ms)} ms`)
    } finally {
      server.resume()
    }
    await store.ping()
  })

  await t.test('the verifier answers 503 and counts nothing while the store is down', async (t) => {
    const { token, hash, prefix } = mintToken()
    await store.create(newAccount({ tokenHash: hash, tokenPrefix: prefix, expiresAt: null }))
    const verifier = new ServiceAccountVerifier({
      store,
      config: { ...SERVICE_ACCOUNTS, cache_ttl_seconds: 0 },
      logger: createLogger({ level: 'warn', destination: logs }),
    })
    const request = { clientAddress: '203.0.113.7' } as Parameters<typeof verifier.verify>[1]
    await server.stop()
    for (let attempt = 0; attempt < 3; attempt += 1) {
      t.match(await verifier.verify({ token, source: 'header' }, request), {
        code: 'AUTH_UNAVAILABLE',
        detail: 'Authentication is temporarily unavailable',
      })
    }
    await server.start()
    t.match(await verifier.verify({ token, source: 'header' }, request), { userId: /^sa:/ })
    await verifier.settled()
  })

  t.notMatch(logs.text, /"level":(50|60)/, 'nothing logged as error or fatal')
}

async function relisten(t: Test, server: PostgresServer): Promise<void> {
  const url = await server.createDatabase()
  const listener = await openStore(t, url)
  const writer = await openStore(t, url)
  await listener.migrate()
  const before = await writer.create(newAccount())
  const after = await writer.create(newAccount())

  const first = nextRevocation(listener)
  await first.ready
  await writer.revoke(before.id, 1_700_000_000)
  t.same(await first.event, { id: before.id, tokenHash: before.tokenHash })

  let timer: NodeJS.Timeout | undefined
  const gap = new Promise<void>((resolve, reject) => {
    listener.onNotificationGap(resolve)
    timer = setTimeout(() => reject(new Error('the listener did not reconnect')), 20_000)
  })
  await server.restart()
  await gap.finally(() => clearTimeout(timer))
  t.pass('the gap was reported after reconnecting')

  const second = nextRevocation(listener)
  await second.ready
  t.equal(await writer.revoke(after.id, 1_700_000_000), 'revoked', 'the pool reconnected too')
  t.same(await second.event, { id: after.id, tokenHash: after.tokenHash })
}

const SERVICE_ACCOUNTS: Config['service_accounts'] = {
  enabled: true,
  cache_ttl_seconds: 30,
  cache_max_entries: 1_000,
  max_failed_lookups: 20,
  failed_lookup_window_seconds: 60,
  throttled_lookups_per_second: 5,
  throttle_max_clients: 1_000,
  last_used_interval_seconds: 60,
}
