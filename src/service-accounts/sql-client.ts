export type SqlRow = Readonly<Record<string, unknown>>

export interface SqlQueryable {
  /** One statement; values only ever travel as parameters. */
  query(text: string, params?: readonly unknown[]): Promise<SqlRow[]>
}

/**
 * The little the SQL store needs from a PostgreSQL driver, so `pg` and PGlite run the same SQL.
 * Adapters throw `StoreUnavailableError` for connection failures and timeouts.
 */
export interface SqlClient extends SqlQueryable {
  /**
   * A statement run on every request (the token lookup): drivers that can keep it prepared per
   * connection do, so the server parses and plans it once. `name` identifies the text.
   */
  queryPrepared(name: string, text: string, params: readonly unknown[]): Promise<SqlRow[]>
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>
  /**
   * Subscribes to a NOTIFY channel. `onGap` runs when the subscription is re-established after an
   * interruption. Resolves after the first attempt to listen.
   */
  listen(channel: string, onPayload: (payload: string) => void, onGap?: () => void): Promise<void>
  close(): Promise<void>
}

/** LISTEN takes no parameters; channel names are our constants, checked anyway. */
export function listenStatement(channel: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new TypeError(`bad channel name ${channel}`)
  return `LISTEN "${channel}"`
}

/** The one row a statement such as `INSERT … RETURNING` gives. */
export function single<T>(rows: readonly T[]): T {
  const row = rows[0]
  if (row === undefined) throw new Error('statement returned no row')
  return row
}
