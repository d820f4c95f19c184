/**
 * The request's one body view: the client's stream read at most once, by the view; every step's
 * edit applied to what the steps before it left; one serialization, when forwarded.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import t from 'tap'
import { GatewayError } from '../../../src/errors.js'
import { ClientBody } from '../../../src/inbound/client-body.js'
import type { FormEdit } from '../../../src/inbound/form-edits.js'
import { rewriteForm, type FormSource } from '../../../src/inbound/multipart-rewriter.js'
import { IdentityEnforcer } from '../../../src/identity/identity-enforcer.js'
import { aguiStage } from '../../../src/surfaces/agui/agui-stage.js'
import type { StageRequest } from '../../../src/http/stage.js'
import type { ForwardPlan } from '../../../src/upstream/forward-plan.js'
import { upstreamRequest } from '../../../src/upstream/upstream-request.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import { inboundRequest } from '../../helpers/inbound.js'
import { jwtUser, parseMultipart, testConfig } from '../identity/helpers.js'

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

const MULTIPART = { 'content-type': 'multipart/form-data; boundary=b0' }
const formOf = (fields: [string, string][]): string =>
  fields
    .map(
      ([name, value]) =>
        `--b0\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    )
    .join('') + '--b0--\r\n'

/** A body whose form rewrites are counted, each with the source and the edits it was given. */
function countedForm(text: string, limits = { maxBytes: 1024, maxDepth: 4 }) {
  const rewrites: { source: FormSource; edits: readonly FormEdit[] }[] = []
  const { stream, reads } = countingStream(text)
  const headers = { ...MULTIPART, 'content-length': String(Buffer.byteLength(text)) }
  const body = new ClientBody(stream, headers, limits, (source, edits) => {
    rewrites.push({ source, edits })
    return rewriteForm(source, edits)
  })
  return { body, stream, rewrites, reads }
}

async function fieldsOf(body: ClientBody): Promise<string[]> {
  const sent = body.forwarded()
  if (sent === undefined) throw new Error('nothing forwarded')
  const parts = await parseMultipart(sent.content, sent.contentType ?? '')
  return parts.map((part) => `${part.name}=${part.value ?? '<file>'}`)
}

void t.test('form edits are recorded, then applied together in one rewrite', async (t) => {
  const { body, stream, rewrites } = countedForm(
    formOf([
      ['user_id', 'mallory'],
      ['session_id', 'theirs'],
      ['version', '2'],
    ]),
  )
  const screened: string[] = []
  body.editForm({ set: [{ name: 'session_id', value: 'mine', always: true }] })
  body.editForm({
    screen: {
      names: new Set(['session_id', 'version']),
      async screen(name, value) {
        screened.push(`${name}=${value}`)
        return name === 'version' ? `${value}0` : value
      },
    },
  })
  t.equal(rewrites.length, 0, 'nothing rewritten while the steps plan')
  t.equal(stream.readableFlowing, null, 'nor the client stream read')
  t.equal(body.kind, 'multipart')
  t.same(await fieldsOf(body), ['session_id=mine', 'user_id=mallory', 'version=20'])
  t.equal(rewrites.length, 1, 'one rewrite for both edits')
  t.equal(rewrites[0]?.edits.length, 2)
  t.same(screened, ['session_id=mine', 'version=2'], 'the screen sees the pinned value')
  t.equal(body.forwarded()?.content, body.forwarded()?.content, 'asked again: the same output')
  t.equal(rewrites.length, 1)
})

void t.test('a form read whole is parsed once and written once from the parse', async (t) => {
  const { body, rewrites, reads } = countedForm(
    formOf([
      ['session_id', 'a'],
      ['message', 'hi'],
    ]),
  )
  const form = await body.form()
  t.same(form.parts, [
    { name: 'session_id', value: { bytes: Buffer.from('a'), text: 'a' } },
    { name: 'message', value: { bytes: Buffer.from('hi'), text: 'hi' } },
  ])
  t.equal(await body.form(), form, 'parsed once')
  body.editForm({ set: [{ name: 'session_id', value: 'b', always: false }] })
  await t.rejects(body.form(), /read before it is edited/, 'edited: no longer the form read')
  t.same(await fieldsOf(body), ['session_id=b', 'message=hi'])
  t.ok('form' in (rewrites[0]?.source ?? {}), 'written from the parse, not parsed again')
  t.equal(reads(), 2, 'the client stream was drained once')
  const file =
    '--b0\r\nContent-Disposition: form-data; name="doc"; filename="a.bin"\r\n' +
    'Content-Type: application/x-thing\r\n\r\n\u0000\u00ffdata\r\n'
  const withFile = countedForm(file + formOf([['user_id', 'mallory']]))
  t.same(
    (await withFile.body.form()).parts.map((part) =>
      'value' in part ? part.value.text : part.data,
    ),
    [Buffer.from('\u0000\u00ffdata'), 'mallory'],
    'a file part is held with its bytes',
  )
  withFile.body.editForm({ set: [{ name: 'user_id', value: 'alice', always: false }] })
  const sent = withFile.body.forwarded()
  if (sent === undefined) throw new Error('nothing forwarded')
  const parts = await parseMultipart(sent.content, sent.contentType ?? '')
  t.same(parts, [
    {
      name: 'doc',
      filename: 'a.bin',
      mimeType: 'application/x-thing',
      data: Buffer.from('\u0000\u00ffdata'),
    },
    { name: 'user_id', value: 'alice' },
  ])
})

void t.test('form bounds and kinds of failure, as before the edits', async (t) => {
  const wrongType = new ClientBody(
    Readable.from([]),
    { 'content-type': 'multipart/form-data' },
    LIMITS,
  )
  const noBoundary = (() => {
    try {
      wrongType.editForm({ set: [] })
    } catch (error) {
      return error
    }
    return undefined
  })()
  t.match(noBoundary, { status: 400, reason: 'identity.multipart' }, 'at once, when recorded')
  t.match(await refusal(wrongType.form()), { status: 400, reason: 'identity.multipart' })
  const large = countedForm(formOf([['f', 'x'.repeat(65)]]), { maxBytes: 64, maxDepth: 4 })
  large.body.editForm({ set: [] })
  const streamed = large.body.forwarded()?.content
  if (!(streamed instanceof Readable)) throw new Error('not streamed')
  const field = await refusal(streamed.toArray())
  t.same([field.status, field.reason], [413, 'body.too_large'], 'a text field over max_body_bytes')
  const read = countedForm(formOf([['f', 'x'.repeat(65)]]), { maxBytes: 64, maxDepth: 4 })
  t.match(await refusal(read.body.form()), { status: 413 }, 'a form read whole: the whole body')
  const unnamed = countedForm('--b0\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b0--\r\n')
  t.match(await refusal(unnamed.body.form()), { status: 400, reason: 'identity.multipart_name' })
})

void t.test('a byte or JSON edit replaces the form and its pending edits', async (t) => {
  const { body, rewrites } = countedForm(formOf([['a', '1']]))
  body.editForm({ set: [{ name: 'a', value: '2', always: false }] })
  const rewritten = await parseMultipart(await body.bytes(), body.contentType ?? '')
  t.same(rewritten, [{ name: 'a', value: '2' }], 'bytes asked for: the edits applied')
  t.equal(rewrites.length, 1)
  const replaced = body.contentType ?? ''
  body.editForm({ set: [{ name: 'b', value: '3', always: true }] })
  body.setBytes(formAsBuffer([['c', '4']]), MULTIPART['content-type'])
  t.same(await fieldsOf(body), ['c=4'], 'the edit made before the bytes were replaced is gone')
  t.not(replaced, MULTIPART['content-type'])
  body.editForm({ set: [{ name: 'd', value: '5', always: true }] })
  body.setJson({ e: 6 })
  t.same(body.forwarded()?.content, Buffer.from('{"e":6}'))
  const edited = countedForm(formOf([['a', '1']]))
  edited.body.setBytes(formAsBuffer([['a', '7']]), MULTIPART['content-type'])
  edited.body.editForm({ set: [{ name: 'z', value: '8', always: true }] })
  t.same(await fieldsOf(edited.body), ['z=8', 'a=7'], 'an edit of set bytes streams from them')
})

const formAsBuffer = (fields: [string, string][]): Buffer => Buffer.from(formOf(fields))

function planOf(): ForwardPlan {
  return {
    headers: { drop: new Set(), dropCookie: undefined, inject: [] },
    query: undefined,
    rewriteResponse: undefined,
    endsWith: undefined,
  }
}
