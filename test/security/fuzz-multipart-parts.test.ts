/**
 * Malformed multipart part headers through the real gateway. A run form is
 * re-serialized to pin `user_id`; whatever the client writes in a part's header block, the answer
 * is never a 5xx (no upstream failure is counted for the client's input), and when the request
 * reaches the upstream it carries the pinned `user_id` exactly once.
 */
import fc from 'fast-check'
import t from 'tap'
import { CONNECTION_FAILURES } from '../../src/connection-failure.js'
import { PART_NAME_REQUIRED } from '../../src/inbound/multipart-parser.js'
import { jConfig, jwt, stack } from '../conformance/fixtures.js'
import { metricValue } from '../helpers/metrics.js'
import { httpRequest } from '../helpers/raw-http.js'
import { startRuntime } from '../helpers/runtime.js'
import { SUITE_SEED } from './properties/index.js'

const runtime = await startRuntime(t)
const J = await stack(t, runtime, jConfig())
const alice = await jwt(['agents:run'], { sub: 'alice' })
const BOUNDARY = 'fuzz-boundary-3c9a'

function body(parts: readonly string[]): string {
  return `${parts.map((part) => `--${BOUNDARY}\r\n${part}`).join('')}--${BOUNDARY}--\r\n`
}

const field = (name: string, value: string) =>
  `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`

async function post(parts: readonly string[]) {
  runtime.clear()
  const reply = await httpRequest(J.gateway.url, {
    method: 'POST',
    path: '/agents/a1/runs',
    headers: {
      authorization: `Bearer ${alice}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    },
    body: body(parts),
  })
  return { reply, upstream: runtime.requests.at(-1) }
}

async function upstreamErrors(): Promise<number> {
  const text = await J.gateway.metrics()
  let total = 0
  for (const kind of CONNECTION_FAILURES) {
    total += metricValue(text, 'portcullis_upstream_errors_total', { kind }) ?? 0
  }
  return total
}

void t.test('a part named only in RFC 2231 form (name*=) is a 400, not a 502', async (t) => {
  const before = await upstreamErrors()
  for (const disposition of [
    `form-data; name*=UTF-8''user_id`,
    `form-data; name*=utf-8''message`,
    'form-data',
    'form-data; filename="x.txt"',
  ]) {
    const { reply, upstream } = await post([
      field('message', 'hi'),
      `Content-Disposition: ${disposition}\r\n\r\nmallory\r\n`,
    ])
    t.equal(reply.status, 400, disposition)
    t.same(JSON.parse(reply.text), { detail: PART_NAME_REQUIRED }, `${disposition}: detail`)
    // A streamed rewrite may already have started the upstream request; it never completes it.
    t.equal(upstream?.form?.['user_id'], undefined, `${disposition}: no user_id reached it`)
  }
  t.equal(await upstreamErrors(), before, 'no upstream failure counted for the client input')
})

const headerText = fc.string({
  unit: fc.constantFrom(
    ...'abcnme=;:"\'*%-_ \t\\/,.0123456789ABCNME',
    'name',
    'name*',
    'filename',
    'filename*',
    'form-data',
    "utf-8''",
    'user_id',
    '\r\n',
    '\u00e9',
    '\u20ac',
  ),
  maxLength: 60,
})
const headerBlock = fc.oneof(
  headerText.map((rest) => `Content-Disposition: ${rest}`),
  headerText.map((rest) => `Content-Disposition: form-data; ${rest}`),
  fc.tuple(headerText, headerText).map(([a, b]) => `Content-Disposition: form-data; ${a}\r\n${b}`),
  fc
    .tuple(headerText, headerText)
    .map(([a, b]) => `Content-Type: ${a}\r\nContent-Disposition: form-data; name="${b}"`),
  headerText,
)

void t.test('fuzzed part headers: never a 5xx, the pin always holds', async (t) => {
  const before = await upstreamErrors()
  let forwarded = 0
  await fc.assert(
    fc.asyncProperty(headerBlock, fc.boolean(), async (headers, first) => {
      const odd = `${headers}\r\n\r\nmallory\r\n`
      const parts = first ? [odd, field('message', 'hi')] : [field('message', 'hi'), odd]
      const { reply, upstream } = await post(parts)
      if (reply.status >= 500) return false
      if (reply.status >= 200 && reply.status < 300) {
        forwarded++
        const users = upstream?.form?.['user_id']
        return users?.length === 1 && users[0] === 'alice'
      }
      return true
    }),
    { seed: SUITE_SEED, numRuns: 300 },
  )
  t.ok(forwarded > 0, `${forwarded} of 300 forwarded, all pinned`)
  t.equal(await upstreamErrors(), before, 'no upstream failure counted')
})
