import type { SqlRow } from './sql-client.js'
import type { ServiceAccountRecord } from './store.js'

/** The columns every account query selects: TOKEN-1's, with `last_used_from` beside its time. */
export const ACCOUNT_COLUMNS =
  'id, name, user_id, token_hash, token_prefix, scopes, created_at, expires_at, last_used_at, last_used_from, revoked_at, created_by'

/** Parses a row from either driver: pg returns bigint as text, PGlite as number. */
export function parseAccountRow(row: SqlRow): ServiceAccountRecord {
  return {
    id: text(row, 'id'),
    name: text(row, 'name'),
    userId: nullable(row, 'user_id', text),
    tokenHash: text(row, 'token_hash'),
    tokenPrefix: text(row, 'token_prefix'),
    scopes: scopes(row),
    createdAt: epoch(row, 'created_at'),
    expiresAt: nullable(row, 'expires_at', epoch),
    lastUsedAt: nullable(row, 'last_used_at', epoch),
    lastUsedFrom: nullable(row, 'last_used_from', text),
    revokedAt: nullable(row, 'revoked_at', epoch),
    createdBy: nullable(row, 'created_by', text),
  }
}

/** Parses an integer column such as `count(*)`. */
export function integerColumn(row: SqlRow | undefined, column: string): number {
  if (row === undefined) throw new TypeError(`no row for column ${column}`)
  return epoch(row, column)
}

/** Parses a text column that may be null. */
export function nullableTextColumn(row: SqlRow, column: string): string | null {
  return nullable(row, column, text)
}

function text(row: SqlRow, column: string): string {
  const value = row[column]
  if (typeof value !== 'string') throw new TypeError(`column ${column} is not text`)
  return value
}

function epoch(row: SqlRow, column: string): number {
  const value = row[column]
  const parsed =
    typeof value === 'number'
      ? value
      : typeof value === 'bigint' || (typeof value === 'string' && /^-?\d+$/.test(value))
        ? Number(value)
        : Number.NaN
  if (!Number.isSafeInteger(parsed)) throw new TypeError(`column ${column} is not an integer`)
  return parsed
}

function nullable<T>(
  row: SqlRow,
  column: string,
  parse: (row: SqlRow, column: string) => T,
): T | null {
  return row[column] === null || row[column] === undefined ? null : parse(row, column)
}

function scopes(row: SqlRow): string[] {
  const raw = row.scopes
  const value: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new TypeError('column scopes is not a list of strings')
  }
  return value
}
