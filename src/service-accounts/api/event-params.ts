import type { ValidationIssue } from '../../errors.js'
import { isAccountId } from '../account-id.js'
import { AUDIT_EVENT_TYPES, type AuditEventType, type EventQuery } from '../audit-event.js'
import { parseEventTime } from './event-time.js'
import { last, parsePage, type PageParams } from './list-params.js'
import { issues, type Loc } from './pydantic-issues.js'

export type EventParams = PageParams & Omit<EventQuery, 'limit' | 'offset' | 'visibleTo'>

/** pydantic's wording of a closed list: `'mint', 'revoke' or 'prune'`. */
const EXPECTED_TYPES = `${AUDIT_EVENT_TYPES.slice(0, -1)
  .map((type) => `'${type}'`)
  .join(', ')} or '${AUDIT_EVENT_TYPES[AUDIT_EVENT_TYPES.length - 1]}'`
const TIME_ERROR = 'expected epoch seconds, a date or an ISO 8601 date-time with a time zone'

/**
 * The query of the event listings: the listing's `limit` and `page`, and the filters `type`
 * (repeated or comma-separated), `account` (an id, or else a name: every account that bore it),
 * `since` (inclusive) and `until` (exclusive), `actor`. Like FastAPI, the last value of a scalar
 * parameter wins; `account` is ignored where the path names the account (`withAccount` false).
 */
export function parseEventParams(
  query: URLSearchParams,
  withAccount: boolean,
): { ok: true; value: EventParams } | { ok: false; issues: ValidationIssue[] } {
  const found: ValidationIssue[] = []
  const paging = parsePage(query, found)
  const types = parseTypes(query, found)
  const since = parseTime(query, 'since', found)
  const until = parseTime(query, 'until', found)
  if (found.length > 0) return { ok: false, issues: found }
  const account = withAccount ? last(query, 'account') : undefined
  const actor = last(query, 'actor')
  return {
    ok: true,
    value: {
      ...paging,
      ...(types === undefined ? {} : { types }),
      ...(account === undefined
        ? {}
        : isAccountId(account)
          ? { accountId: account.toLowerCase() }
          : { accountName: account }),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
      ...(actor === undefined ? {} : { actor }),
    },
  }
}

function parseTypes(
  query: URLSearchParams,
  found: ValidationIssue[],
): AuditEventType[] | undefined {
  const given = query.getAll('type')
  if (given.length === 0) return undefined
  const types: AuditEventType[] = []
  const items = given.flatMap((value) => value.split(','))
  for (const [index, item] of items.entries()) {
    const type = AUDIT_EVENT_TYPES.find((known) => known === item.trim())
    if (type === undefined)
      found.push(issues.literalError(['query', 'type', index], item, EXPECTED_TYPES))
    else if (!types.includes(type)) types.push(type)
  }
  return types
}

function parseTime(
  query: URLSearchParams,
  key: 'since' | 'until',
  found: ValidationIssue[],
): number | undefined {
  const input = last(query, key)
  if (input === undefined) return undefined
  const loc: Loc = ['query', key]
  const parsed = parseEventTime(input.trim())
  if (parsed === undefined) found.push(issues.datetimeParsing(loc, input, TIME_ERROR))
  return parsed
}
