import type { ValidationIssue } from '../../errors.js'
import { SORTABLE_COLUMNS, type ListQuery, type SortColumn } from '../store.js'
import { issues, laxBool, laxInt, type Loc } from './pydantic-issues.js'

export interface ListParams extends ListQuery {
  readonly page: number
}

/** A page as the listing pages: `limit` (1–100, default 20) and `page` (≥ 1, default 1). */
export interface PageParams {
  readonly limit: number
  readonly page: number
  readonly offset: number
}

const DEFAULT_LIMIT = 20
const MAX_LIMIT = 100

/** `GET /service-accounts` query parameters (SA-2); like FastAPI, the last value wins. */
export function parseListParams(
  query: URLSearchParams,
): { ok: true; value: ListParams } | { ok: false; issues: ValidationIssue[] } {
  const found: ValidationIssue[] = []
  const paging = parsePage(query, found)
  let includeRevoked = true
  const include = last(query, 'include_revoked')
  if (include !== undefined) {
    const parsed = laxBool(include, ['query', 'include_revoked'])
    if (parsed.ok) includeRevoked = parsed.value
    else found.push(parsed.issue)
  }
  const sortByInput = last(query, 'sort_by')
  // AgentOS silently falls back to created_at and descending for values it does not know.
  const sortBy: SortColumn = SORTABLE_COLUMNS.includes(sortByInput as SortColumn)
    ? (sortByInput as SortColumn)
    : 'created_at'
  const sortOrder = last(query, 'sort_order') === 'asc' ? 'asc' : 'desc'
  if (found.length > 0) return { ok: false, issues: found }
  return {
    ok: true,
    value: { ...paging, sortBy, sortOrder, includeRevoked },
  }
}

/** `limit` and `page` as the listing reads them; their problems are added to `found`. */
export function parsePage(query: URLSearchParams, found: ValidationIssue[]): PageParams {
  const limit = bounded(query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT, found)
  const page = bounded(query, 'page', 1, 1, undefined, found)
  return { limit, page, offset: (page - 1) * limit }
}

/** A query parameter's last value: FastAPI reads a repeated scalar parameter so. */
export function last(query: URLSearchParams, key: string): string | undefined {
  const values = query.getAll(key)
  return values[values.length - 1]
}

function bounded(
  query: URLSearchParams,
  key: string,
  fallback: number,
  min: number,
  max: number | undefined,
  found: ValidationIssue[],
): number {
  const input = last(query, key)
  if (input === undefined) return fallback
  const loc: Loc = ['query', key]
  const parsed = laxInt(input, loc)
  if (!parsed.ok) found.push(parsed.issue)
  else if (parsed.value < min) found.push(issues.greaterThanEqual(loc, input, min))
  else if (max !== undefined && parsed.value > max)
    found.push(issues.lessThanEqual(loc, input, max))
  else return parsed.value
  return fallback
}
