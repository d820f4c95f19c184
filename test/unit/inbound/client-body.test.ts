/**
 * The request's one body view: the client's stream read at most once, by the view; every step's
 * edit applied to what the steps before it left; one serialization, when forwarded.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import t from 'tap'
import { GatewayError } from '../../../src/errors.js'
import { ClientBody } from '../../../src/inbound/client-body.js'
import { IdentityEnforcer } from '../../../src/identity/identity-enforcer.js'
import { aguiStage } from '../../../src/surfaces/agui/agui-stage.js'
import type { StageRequest } from '../../../src/http/stage.js'
import type { ForwardPlan } from '../../../src/upstream/forward-plan.js'
import { upstreamRequest } from '../../../src/upstream/upstream-request.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import { inboundRequest } from '../../helpers/inbound.js'
import { jwtUser, testConfig } from '../identity/helpers.js'

const LIMITS = { maxBytes: 64, maxDepth: 4 }
const JSON_TYPE = { 'content-type': 'application/json' }
const OPTIONS = {
  identityPrefixes: [],
  identityNames: new Set<string>(),
  preserveHost: false,
  upstreamHost: 'runtime:8000',
}

/** A client stream that counts how often it is asked for data. */
function countingStream(text: string): { stream: Readable; reads: () => number } {
  let reads = 0
  let sent = false
  const stream = new Readable({
    read() {
      reads++
      this.push(sent ? null : Buffer.from(text))
      sent = true
    },
  })
  return { stream, reads: () => reads }
}

function bodyOf(text: string, headers: IncomingHttpHeaders = JSON_TYPE): ClientBody {
  const length = { 'content-length': String(Buffer.byteLength(text)) }
  return new ClientBody(Readable.from([Buffer.from(text)]), { ...headers, ...length }, LIMITS)
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof GatewayError)) throw new Error(`expected a GatewayError: ${String(error)}`)
  return error
}

void t.test('a body nobody looks into streams through unread', async (t) => {
  const client = Readable.from([Buffer.from('{"a":1}')])
  const headers = { ...JSON_TYPE, 'content-length': '7' }
  const body = new ClientBody(client, headers, LIMITS)
  t.equal(body.kind, 'json')
  t.equal(body.forwarded(), undefined, 'nothing replaces the client stream')
  const inbound = inboundRequest({
    method: 'POST',
    rawHeaders: ['Content-Type', 'application/json', 'Content-Length', '7'],
  })
  const request = upstreamRequest(inbound, planOf(), body, OPTIONS)
  t.equal(request.body, client, 'the very stream the client sent')
  t.equal(client.readableFlowing, null, 'never read by the gateway')
  t.ok(request.headers.includes('Content-Length'), "the client's framing is kept")
})

void t.test('the client stream is read once, whoever asks', async (t) => {
  const { stream, reads } = countingStream('{"user_id":"x"}')
  const body = new ClientBody(stream, { ...JSON_TYPE, 'content-length': '15' }, LIMITS)
  const [first, second] = await Promise.all([body.bytes(), body.bytes()])
  t.equal(first, second, 'the same bytes for two steps asking at once')
  t.equal(await body.bytes(), first, 'and for a later one')
  t.same(await body.json(), { value: { user_id: 'x' } })
  t.equal(await body.json(), await body.json(), 'parsed once')
  t.equal(reads(), 2, 'the stream was drained once (its data, then its end)')
  t.equal(body.forwarded()?.content, first, 'read but unchanged: the same bytes go on')
})

void t.test('an identity pin and a surface edit: both arrive, serialized once', async (t) => {
  const catalogue = testCatalogue({
    interfaces: { aguiEndpoints: [{ prefix: '', bound: 'agent' }] },
  })
  const enforcer = new IdentityEnforcer(testConfig({ auth: { user_isolation: true } }), 'jwt')
  const alice = jwtUser('alice', ['agents:run'])
  const text = '{"user_id":"mallory","forwarded_props":{"user_id":"mallory"},"threadId":"t"}'
  const { stream, reads } = countingStream(text)
  const headers = { ...JSON_TYPE, 'content-length': String(text.length) }
  const body = new ClientBody(stream, headers, { maxBytes: 1024, maxDepth: 8 })
  const route = catalogue.match('POST', '/agui')
  const stringify = t.capture(JSON, 'stringify', JSON.stringify)
  const parse = t.capture(JSON, 'parse', JSON.parse)
  const identity = await enforcer.plan({
    principal: alice,
    method: 'POST',
    path: '/agui',
    route,
    query: '',
    headers,
    body,
  })
  const request: StageRequest = {
    inbound: inboundRequest({ method: 'POST', path: '/agui' }),
    route,
    principal: alice,
    body,
  }
  await aguiStage().plan(request, identity)
  // A body is an object; the identity headers stringify the scopes, an array.
  const wholeBodies = () =>
    stringify().filter(({ args }) => typeof args[0] === 'object' && !Array.isArray(args[0]))
  t.equal(wholeBodies().length, 0, 'nothing serialized while planning')
  const sent = body.forwarded()
  t.same(body.forwarded(), sent, 'asking again serializes nothing more')
  t.equal(wholeBodies().length, 1, 'one serialization, when forwarded')
  const bodyParses = parse().filter(({ args }) => String(args[0]).startsWith('{'))
  t.equal(bodyParses.length, 1, 'one parse of the body')
  t.equal(reads(), 2, 'the client stream was drained once')
  const content = sent?.content
  if (!Buffer.isBuffer(content)) throw new Error('no buffered body')
  t.same(JSON.parse(content.toString('utf8')), {
    user_id: 'alice',
    forwarded_props: { user_id: 'alice' },
    threadId: 't',
  })
})

void t.test('bounds: max_body_bytes and max_json_depth, with their errors', async (t) => {
  const declared = await refusal(bodyOf('x'.repeat(65)).bytes())
  t.same(
    [declared.status, declared.detail, declared.reason],
    [413, 'Request body too large', 'body.too_large'],
  )
  const chunked = new ClientBody(
    Readable.from([Buffer.alloc(40), Buffer.alloc(40)]),
    { 'transfer-encoding': 'chunked' },
    LIMITS,
  )
  t.equal((await refusal(chunked.bytes())).status, 413, 'counted as it arrives when undeclared')
  const deep = await refusal(bodyOf('[[[[[1]]]]]').json())
  t.same(
    [deep.status, deep.detail, deep.reason],
    [400, 'JSON body nested too deeply', 'body.json_depth'],
  )
  t.same(await bodyOf('[[[[1]]]]').json(), { value: [[[[1]]]] }, 'at the bound')
  t.same(await bodyOf('{"a":NaN}').json(), { invalid: true }, 'Python-only JSON is invalid here')
  t.equal(await bodyOf('').json(), undefined, 'no body')
  const empty = new ClientBody(Readable.from([]), { 'transfer-encoding': 'chunked' }, LIMITS)
  t.equal(await empty.json(), undefined, 'an empty chunked body')
  t.equal(empty.kind, 'none', 'read and empty: nothing for a form check')
  t.same(empty.forwarded()?.content, Buffer.alloc(0), 'forwarded as the empty body it was')
})

void t.test('edits compose in order: bytes, then a value, then bytes again', async (t) => {
  const body = bodyOf('{"a": 1}')
  t.same(await body.json(), { value: { a: 1 } })
  body.setJson({ a: 2 })
  t.equal((await body.bytes()).toString(), '{"a":2}', 'a step asking for bytes gets the edit')
  body.setBytes(Buffer.from('{"a":2,"b":3}'))
  t.same(await body.json(), { value: { a: 2, b: 3 } }, 'parsed again after a byte edit')
  t.same(body.forwarded()?.content, Buffer.from('{"a":2,"b":3}'))
  t.equal(body.forwarded()?.contentType, undefined, "the client's content type")
  const emptied = bodyOf('')
  emptied.setJson({})
  t.equal(emptied.kind, 'json', 'a value set on an empty body is a body')
})

void t.test('an edit made while the client stream is read wins over what is read', async (t) => {
  const body = bodyOf('{"a":1}')
  const reading = body.bytes()
  body.setBytes(Buffer.from('{"b":2}'))
  t.same(await reading, Buffer.from('{"a":1}'), 'the read finishes with what the client sent')
  t.same(body.forwarded()?.content, Buffer.from('{"b":2}'), 'the edit is what goes on')
})

void t.test('a streaming rewrite takes the current body and becomes it', async (t) => {
  const body = bodyOf('a=1', { 'content-type': 'application/x-www-form-urlencoded' })
  t.equal(body.kind, 'urlencoded')
  body.setJson({ replaced: true })
  const seen: string[] = []
  const output = body.pipeThrough((input, contentType) => {
    seen.push(contentType)
    return { body: input, contentType: 'text/plain' }
  })
  t.same(seen, ['application/x-www-form-urlencoded'])
  t.equal(body.kind, 'other', 'the rewrite names the new type')
  t.same(body.forwarded(), { content: output.body, contentType: 'text/plain' })
  t.equal((await body.bytes()).toString(), '{"replaced":true}', 'the edit went through the rewrite')
  const unread = bodyOf('x=1', { 'content-type': 'application/x-www-form-urlencoded' })
  const client = unread.clientStream
  unread.pipeThrough((input) => {
    t.equal(input, client, "an unread body: the client's own stream")
    return { body: input, contentType: 'text/plain' }
  })
})

function planOf(): ForwardPlan {
  return {
    headers: { drop: new Set(), dropCookie: undefined, inject: [] },
    query: undefined,
    rewriteResponse: undefined,
    endsWith: undefined,
  }
}
