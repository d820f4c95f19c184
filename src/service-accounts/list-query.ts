import { ACCOUNT_COLUMNS } from './account-row.js'
import type { ListQuery, SortColumn } from './store.js'

/** Whitelisted ORDER BY expressions; names sort bytewise so every database orders them alike. */
const ORDER_EXPRESSIONS: Readonly<Record<SortColumn, string>> = {
  created_at: 'created_at',
  name: 'name COLLATE "C"',
  last_used_at: 'last_used_at',
  expires_at: 'expires_at',
}

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
  const { filter, params } = filterOf(query)
  const paging = params.length
  return {
    page: {
      text: `SELECT ${ACCOUNT_COLUMNS} FROM portcullis_service_accounts ${filter}
        ORDER BY ${order} ${direction}, id ${direction} LIMIT $${paging + 1} OFFSET $${paging + 2}`,
      params: [...params, query.limit, query.offset],
    },
    count: {
      text: `SELECT count(*) AS total FROM portcullis_service_accounts ${filter}`,
      params,
    },
  }
}

/** The WHERE clause of a list, the same for its page and its count, and its parameters. */
function filterOf(query: ListQuery): { filter: string; params: unknown[] } {
  const revoked = '($1::boolean OR revoked_at IS NULL)'
  if (query.visibleTo === undefined)
    return { filter: `WHERE ${revoked}`, params: [query.includeRevoked] }
  return {
    filter: `WHERE ${revoked} AND (user_id IS NULL OR user_id = $2::text)`,
    params: [query.includeRevoked, query.visibleTo.userId],
  }
}
