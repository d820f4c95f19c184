import { StoreUnavailableError } from './store-errors.js'

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
])

/** SQLSTATEs that mean the server is going away or cannot serve: not a problem with the query. */
const SERVER_CODES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '57014', // query_canceled: statement_timeout
  '53300', // too_many_connections
])

/** Texts `pg` and `pg-pool` use for timeouts and lost connections (they carry no code). */
const DRIVER_MESSAGES = [
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
]

/** Whether a `pg` error means "cannot reach the database / timed out". */
export function isPgUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08')) return true
  }
  if (DRIVER_MESSAGES.some((text) => error.message.startsWith(text))) return true
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isPgUnavailable(inner, depth + 1))
  ) {
    return true
  }
  return isPgUnavailable(error.cause, depth + 1)
}

/** Rethrows connectivity failures as `StoreUnavailableError`; anything else unchanged. */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isPgUnavailable(error)) return error
  const message = error instanceof Error ? error.message : 'unknown error'
  return new StoreUnavailableError(`database unavailable: ${message}`, { cause: error })
}
