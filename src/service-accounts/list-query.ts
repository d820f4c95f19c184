import { ACCOUNT_COLUMNS } from './account-row.js'
import type { ListQuery, SortColumn } from './store.js'

/** Whitelisted ORDER BY expressions; names sort bytewise so every database orders them alike. */
const ORDER_EXPRESSIONS: Readonly<Record<SortColumn, string>> = {
  created_at: 'created_at',
  name: 'name COLLATE "C"',
  last_used_at: 'last_used_at',
  expires_at: 'expires_at',
}

const FILTER = 'WHERE ($1::boolean OR revoked_at IS NULL)'

export interface ListStatements {
  readonly page: { readonly text: string; readonly params: readonly unknown[] }
  readonly count: { readonly text: string; readonly params: readonly unknown[] }
}

/**
 * The page and count statements of a list. Only whitelisted text reaches the SQL; anything else
 * sorts by `created_at`, and any order but `asc` is descending (as AgentOS).
 */
export function listStatements(query: ListQuery): ListStatements {
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) throw new RangeError('bad limit')
  if (!Number.isSafeInteger(query.offset) || query.offset < 0) throw new RangeError('bad offset')
  const order = Object.hasOwn(ORDER_EXPRESSIONS, query.sortBy)
    ? ORDER_EXPRESSIONS[query.sortBy]
    : ORDER_EXPRESSIONS.created_at
  const direction = query.sortOrder === 'asc' ? 'ASC' : 'DESC'
  return {
    page: {
      text: `SELECT ${ACCOUNT_COLUMNS} FROM portcullis_service_accounts ${FILTER}
        ORDER BY ${order} ${direction}, id ${direction} LIMIT $2 OFFSET $3`,
      params: [query.includeRevoked, query.limit, query.offset],
    },
    count: {
      text: `SELECT count(*) AS total FROM portcullis_service_accounts ${FILTER}`,
      params: [query.includeRevoked],
    },
  }
}
