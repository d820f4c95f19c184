/**
 * A scoped caller's listing (V3-COMP-2, V3-SCHED-3, V3-KNOW-1): read whole from the open
 * upstream, filtered to the rows the caller may see, paginated as the client asked.
 */
import t from 'tap'
import { ownedListing } from '../../../../src/surfaces/handlers/owned-listing.js'
import { OWNED_ROWS } from '../../../../src/surfaces/handlers/owned-rows.js'
import type { UpstreamLookup } from '../../../../src/surfaces/common/upstream-lookup.js'
import type { BufferedResponse } from '../../../../src/upstream/upstream-client.js'
import { gatewayErrorOf } from '../../auth/helpers.js'
import { jsonResponse, page } from './helpers.js'

const rows = Array.from({ length: 250 }, (_, index) => ({ component_id: `c${index}` }))
const owners = (ids: readonly string[]) =>
  Promise.resolve(
    new Map(
      ids.flatMap((id): [string, string | null][] => {
        const index = Number(id.slice(1))
        if (index % 10 === 0) return [[id, 'alice']]
        if (index % 10 === 1) return [[id, null]]
        if (index % 10 === 2) return [[id, 'bob']]
        return []
      }),
    ),
  )

/** An upstream that pages `all` as AgentOS does, recording the queries it was asked. */
function upstream(all: unknown[], options: { totalPages?: boolean } = {}) {
  const asked: string[] = []
  const lookup: UpstreamLookup = async (path) => {
    asked.push(path)
    const query = new URLSearchParams(path.split('?')[1])
    const pageNumber = Number(query.get('page'))
    const limit = Number(query.get('limit'))
    return { status: 200, value: page(all, pageNumber, limit, options.totalPages ?? true) }
  }
  return { lookup, asked }
}

const bodyOf = (response: BufferedResponse | undefined) =>
  JSON.parse(response?.body.toString('utf8') ?? 'null') as {
    data: { component_id: string }[]
    meta: Record<string, unknown>
  }

void t.test('whole listing read, filtered, paginated as asked', async (t) => {
  const { lookup, asked } = upstream(rows)
  const rewrite = ownedListing({
    rows: OWNED_ROWS.component,
    scoped: 'alice',
    query: 'component_type=agent&page=2&limit=10',
    lookup,
    ownersOf: owners,
  })
  const response = await rewrite(jsonResponse({ ...page(rows, 2, 10), extra: 'kept' }))
  const body = bodyOf(response)
  // alice's (…0) and shared (…1) rows: 50 of 250; page 2 of 10 holds the 11th to 20th.
  t.same(
    body.data.map((row) => row.component_id),
    ['c50', 'c51', 'c60', 'c61', 'c70', 'c71', 'c80', 'c81', 'c90', 'c91'],
  )
  t.match(body.meta, { page: 2, limit: 10, total_count: 50, total_pages: 5 })
  t.match(JSON.parse(response.body.toString()), { extra: 'kept' })
  t.equal(response.headers['content-length'], String(response.body.length))
  t.same(asked, [
    '/components?component_type=agent&page=1&limit=100',
    '/components?component_type=agent&page=2&limit=100',
    '/components?component_type=agent&page=3&limit=100',
  ])
})

void t.test('the end of a listing without total_pages, and one that repeats', async (t) => {
  const { lookup, asked } = upstream(rows, { totalPages: false })
  const rewrite = ownedListing({
    rows: OWNED_ROWS.component,
    scoped: 'bob',
    query: '',
    lookup,
    ownersOf: owners,
  })
  t.equal(bodyOf(await rewrite(jsonResponse(page(rows, 1, 20)))).meta.total_count, 50)
  t.equal(asked.length, 3, 'a short page is the last')
  let calls = 0
  const repeating: UpstreamLookup = async () => {
    calls += 1
    return {
      status: 200,
      value: { ...page(rows, 1, 100), meta: { page: 1, limit: 100, total_pages: 9 } },
    }
  }
  const stuck = ownedListing({
    rows: OWNED_ROWS.component,
    scoped: 'bob',
    query: '',
    lookup: repeating,
    ownersOf: owners,
  })
  await stuck(jsonResponse(page(rows, 1, 20)))
  t.equal(calls, 2, 'a page with nothing new ends the reading')
})

void t.test('knowledge page 0 holds nothing; rows without an id are left out', async (t) => {
  const content = [{ id: 'k1' }, { name: 'no id' }, { id: 'k1' }]
  const lookup: UpstreamLookup = async () => ({ status: 200, value: page(content, 1, 100) })
  const rewrite = ownedListing({
    rows: OWNED_ROWS.knowledge_content,
    scoped: 'alice',
    query: 'page=0',
    lookup,
    ownersOf: async () => new Map([['k1', 'alice']]),
  })
  const zero = await rewrite(
    jsonResponse({ data: [], meta: { page: 0, limit: 20, total_count: 3, total_pages: 1 } }),
  )
  t.same(bodyOf(zero).data, [])
  t.equal(bodyOf(zero).meta.total_count, 1)
})

void t.test('what is not a listing to filter', async (t) => {
  const lookup: UpstreamLookup = async () => ({ status: 200, value: page(rows, 1, 100) })
  const options = {
    rows: OWNED_ROWS.schedule,
    scoped: 'alice',
    query: '',
    lookup,
    ownersOf: owners,
  }
  const rewrite = ownedListing(options)
  const refused = jsonResponse({ detail: 'bad' }, 422)
  t.equal(await rewrite(refused), refused, "the upstream's refusal as it is")
  const encoded = { ...jsonResponse(page(rows, 1, 10)), headers: { 'content-encoding': 'gzip' } }
  t.equal((await gatewayErrorOf(() => rewrite(encoded))).reason, 'identity.listing_encoded')
  t.equal(
    (await gatewayErrorOf(() => rewrite(jsonResponse({ data: 'x', meta: {} })))).reason,
    'handlers.listing_lookup',
    'an answer that is no page',
  )
  const failing = ownedListing({ ...options, lookup: async () => ({ status: 500, value: {} }) })
  t.equal(
    (await gatewayErrorOf(() => failing(jsonResponse(page(rows, 1, 10))))).status,
    502,
    'the whole listing could not be read',
  )
})
