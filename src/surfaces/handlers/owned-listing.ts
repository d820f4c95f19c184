import { GatewayError } from '../../errors.js'
import {
  isEncoded,
  isSuccess,
  replaceJsonBody,
  unfilterableListing,
} from '../../identity/response-rewrites.js'
import type { ResponseRewrite } from '../../upstream/forward-plan.js'
import { isJsonObject, parseJson, type JsonObject } from '../common/json.js'
import { lookupFailed, type UpstreamLookup } from '../common/upstream-lookup.js'
import { listedFor, type OwnedRows } from './owned-rows.js'

/** Rows read to answer one filtered listing; a longer listing fails closed. */
const MAX_LISTED_ROWS = 100_000

/** One page of an AgentOS listing (`PaginatedResponse`). */
interface Page {
  readonly body: JsonObject
  readonly data: readonly unknown[]
  readonly meta: JsonObject & { readonly page: number; readonly limit: number }
}

export interface OwnedListingOptions {
  readonly rows: OwnedRows
  readonly scoped: string
  /** The query the listing was asked with (its filters); `page` and `limit` are replaced. */
  readonly query: string
  readonly lookup: UpstreamLookup
  /** The recorded owners of these ids. */
  readonly ownersOf: (ids: readonly string[]) => Promise<ReadonlyMap<string, string | null>>
}

/**
 * A listing as AgentOS 3.0 answers a scoped caller (V3-COMP-2, V3-SCHED-3, V3-KNOW-1): the rows
 * it may see, paginated. AgentOS filters before it paginates, and the open upstream filters
 * nothing, so the gateway reads the whole listing (the client's filters, pages of the largest
 * size the route accepts), keeps the visible rows, and answers the page the client asked for
 * with `meta` counting the visible rows (`total_count`, `total_pages`; `page`, `limit` and the
 * rest as the upstream gave them). The upstream's own answer to the client's query is used for
 * its status, its errors and the page and limit it accepted.
 */
export function ownedListing(options: OwnedListingOptions): ResponseRewrite {
  return async (response) => {
    if (!isSuccess(response)) return response
    if (isEncoded(response)) throw unfilterableListing()
    const asked = pageOf(parseJson(response.body)?.value)
    if (asked === undefined) throw lookupFailed('handlers.listing_lookup')
    const visible = await visibleRows(options)
    const { page, limit } = asked.meta
    return replaceJsonBody(response, {
      ...asked.body,
      // Knowledge accepts page 0, which holds nothing.
      data: page === 0 ? [] : visible.slice((page - 1) * limit, page * limit),
      meta: {
        ...asked.meta,
        total_count: visible.length,
        total_pages: Math.ceil(visible.length / limit),
      },
    })
  }
}

async function visibleRows(options: OwnedListingOptions): Promise<unknown[]> {
  const { rows, scoped, lookup } = options
  const seen = new Set<string>()
  const visible: unknown[] = []
  for (let page = 1; ; page += 1) {
    const query = new URLSearchParams(options.query)
    query.delete('page')
    query.delete('limit')
    query.set('page', String(page))
    query.set('limit', String(rows.pageSize))
    const answer = await lookup(`${rows.base}?${query.toString()}`)
    const listed = answer.status === 200 ? pageOf(answer.value) : undefined
    if (listed === undefined) throw lookupFailed('handlers.listing_lookup')
    const ids = listed.data.map((row) => rowId(row, rows.idKey))
    const owners = await options.ownersOf(ids.filter((id): id is string => id !== undefined))
    const before = seen.size
    listed.data.forEach((row, index) => {
      const id = ids[index]
      // A row without an id cannot be decided on: it is left out.
      if (id === undefined || seen.has(id)) return
      seen.add(id)
      if (listedFor(rows, owners, id, scoped)) visible.push(row)
    })
    const totalPages = listed.meta['total_pages']
    const last =
      typeof totalPages === 'number' ? page >= totalPages : listed.data.length < listed.meta.limit
    // A page with nothing new ends the reading too: an upstream that ignores `page` repeats one.
    if (last || seen.size === before) return visible
    if (seen.size >= MAX_LISTED_ROWS) {
      throw new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream listing could not be filtered', {
        reason: 'handlers.listing_too_long',
      })
    }
  }
}

function pageOf(value: unknown): Page | undefined {
  if (!isJsonObject(value)) return undefined
  const data = value['data']
  const meta = value['meta']
  if (!Array.isArray(data) || !isJsonObject(meta)) return undefined
  const { page, limit } = meta
  if (!isIntegerFrom(page, 0) || !isIntegerFrom(limit, 1)) return undefined
  return { body: value, data, meta: { ...meta, page, limit } }
}

function isIntegerFrom(value: unknown, least: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= least
}

function rowId(row: unknown, idKey: string): string | undefined {
  const id = isJsonObject(row) ? row[idKey] : undefined
  return typeof id === 'string' ? id : undefined
}
