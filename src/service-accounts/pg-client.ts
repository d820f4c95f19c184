import pg from 'pg'
import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import { toStoreError } from './pg-errors.js'
import { PgListener } from './pg-listener.js'
import type { SqlClient, SqlQueryable, SqlRow } from './sql-client.js'

export type PgDatabaseConfig = Config['database'] & { readonly url: string }

/**
 * PostgreSQL through a `pg.Pool`. Every wait is bounded: opening a connection by
 * `connect_timeout_ms`, each query by `query_timeout_ms` (client side, which also covers a server
 * that stopped answering) and by `statement_timeout` (server side).
 */
export class PgSqlClient implements SqlClient {
  readonly #pool: pg.Pool
  readonly #listener: PgListener
  #closed = false

  constructor(config: PgDatabaseConfig, logger: Logger) {
    this.#pool = new pg.Pool({
      connectionString: config.url,
      max: config.pool_max,
      connectionTimeoutMillis: config.connect_timeout_ms,
      query_timeout: config.query_timeout_ms,
      statement_timeout: config.query_timeout_ms,
      keepAlive: true,
    })
    // An idle client's error (the server restarted) is emitted on the pool; unhandled, it would
    // crash the process. The pool already drops that client; the next query opens a new one.
    this.#pool.on('error', (error) => {
      logger.warn({ err: error }, 'idle database connection failed')
    })
    this.#listener = new PgListener({
      connectionString: config.url,
      connectTimeoutMs: config.connect_timeout_ms,
      queryTimeoutMs: config.query_timeout_ms,
      logger,
    })
  }

  async query(text: string, params: readonly unknown[] = []): Promise<SqlRow[]> {
    try {
      const result = await this.#pool.query<SqlRow>(text, [...params])
      return result.rows
    } catch (error) {
      throw toStoreError(error)
    }
  }

  async queryPrepared(name: string, text: string, params: readonly unknown[]): Promise<SqlRow[]> {
    try {
      const result = await this.#pool.query<SqlRow>({ name, text, values: [...params] })
      return result.rows
    } catch (error) {
      throw toStoreError(error)
    }
  }

  async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.#pool.connect()
    } catch (error) {
      throw toStoreError(error)
    }
    // The pool hears a client's errors only while it is idle. A checked-out client whose
    // connection the server ends (a shutdown, pg_terminate_backend) emits 'error' here, and an
    // 'error' nobody hears would end the process: it is kept as the transaction's failure.
    let connectionError: Error | undefined
    const onError = (error: Error): void => {
      connectionError ??= error
    }
    client.on('error', onError)
    const tx: SqlQueryable = {
      query: async (text, params = []) => (await client.query<SqlRow>(text, [...params])).rows,
    }
    try {
      await client.query('BEGIN')
      const result = await fn(tx)
      await client.query('COMMIT')
      client.off('error', onError)
      client.release()
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      client.off('error', onError)
      // Destroy rather than reuse: after a timeout the connection's state is unknown.
      client.release(error instanceof Error ? error : true)
      throw toStoreError(connectionError ?? error)
    }
  }

  listen(channel: string, onPayload: (payload: string) => void, onGap?: () => void): Promise<void> {
    return this.#listener.listen(channel, onPayload, onGap)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#listener.close()
    await this.#pool.end()
  }
}
