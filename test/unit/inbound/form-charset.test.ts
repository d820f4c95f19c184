/**
 * Multipart text as Starlette's `MultiPartParser` reads it: the request's `charset` (UTF-8 by
 * default, a part's own ignored), latin-1 for bytes that do not decode; the rewrite writes the
 * client's bytes back unchanged and a step's values in that charset.
 */
import { Readable } from 'node:stream'
import t from 'tap'
import { GatewayError } from '../../../src/errors.js'
import { fieldTextBytes, formCharset, readFieldText } from '../../../src/inbound/form-charset.js'
import { parseForm } from '../../../src/inbound/multipart-parser.js'
import { rewriteForm } from '../../../src/inbound/multipart-rewriter.js'
import { parseMultipart } from '../identity/helpers.js'

const BOUNDARY = 'cs0'
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`

function form(parts: readonly (readonly [string, Buffer])[]): Buffer {
  return Buffer.concat([
    ...parts.flatMap(([head, value]) => [
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; ${head}\r\n\r\n`),
      value,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ])
}

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    return error instanceof GatewayError ? `${error.status} ${error.reason}` : String(error)
  }
  return undefined
}

void t.test(
  'the charset: the request parameter as Python names it, UTF-8 by default',
  async (t) => {
    t.equal(formCharset(TYPE), 'utf-8')
    t.equal(formCharset(`${TYPE}; charset=UTF-8`), 'utf-8')
    t.equal(formCharset(`${TYPE}; charset="utf8"`), 'utf-8')
    t.equal(formCharset(`multipart/form-data; charset=ISO-8859-1; boundary=${BOUNDARY}`), 'latin-1')
    t.equal(formCharset(`${TYPE}; charset=Latin_1`), 'latin-1')
    t.equal(formCharset(`${TYPE}; charset=us-ascii`), 'latin-1', 'ASCII reads as latin-1 does')
    t.equal(
      reasonOf(() => formCharset(`${TYPE}; charset=shift_jis`)),
      '400 identity.multipart_charset',
    )
    t.equal(
      reasonOf(() => formCharset(`${TYPE}; charset=windows-1252`)),
      '400 identity.multipart_charset',
    )
  },
)

void t.test('a field is read as Starlette reads it', async (t) => {
  t.equal(readFieldText(Buffer.from('sesión-α'), 'utf-8'), 'sesión-α')
  t.equal(readFieldText(Buffer.from([0x73, 0xe9]), 'utf-8'), 's\u00e9', 'not UTF-8: latin-1')
  t.equal(
    readFieldText(Buffer.from([0xed, 0xa0, 0x80]), 'utf-8'),
    '\u00ed\u00a0\u0080',
    'a surrogate is not UTF-8',
  )
  t.equal(readFieldText(Buffer.from('\ufeffa'), 'utf-8'), '\ufeffa', 'a BOM is kept')
  t.equal(readFieldText(Buffer.from('é'), 'latin-1'), '\u00c3\u00a9')
  t.same(fieldTextBytes('jürgen-李', 'utf-8'), Buffer.from('jürgen-李'))
  t.same(fieldTextBytes('jürgen', 'latin-1'), Buffer.from('jürgen', 'latin1'))
  t.equal(
    reasonOf(() => fieldTextBytes('李', 'latin-1')),
    '400 identity.multipart_charset',
  )
  t.equal(
    reasonOf(() => fieldTextBytes('\ud800', 'utf-8')),
    '400 identity.multipart_charset',
  )
})

void t.test('the parser hands each field its bytes and their text', async (t) => {
  const parsed = await parseForm(
    form([
      ['name="session_id"', Buffer.from('sesión-α')],
      ['name="raw"', Buffer.from([0xff, 0x00, 0xc3, 0xa9])],
      // Starlette ignores a part's own charset; busboy decodes it, and the text is what is written.
      ['name="declared"\r\nContent-Type: text/plain; charset=utf-8', Buffer.from('日本')],
    ]),
    { contentType: TYPE, maxFieldBytes: 64 },
  )
  t.same(parsed.parts, [
    { name: 'session_id', value: { bytes: Buffer.from('sesión-α'), text: 'sesión-α' } },
    {
      name: 'raw',
      value: { bytes: Buffer.from([0xff, 0x00, 0xc3, 0xa9]), text: '\u00ff\u0000\u00c3\u00a9' },
    },
    { name: 'declared', value: { bytes: Buffer.from('日本'), text: '日本' } },
  ])
  const latin = await parseForm(form([['name="user_id"', Buffer.from('é')]]), {
    contentType: `${TYPE}; charset=latin1`,
    maxFieldBytes: 64,
  })
  t.same(latin.parts, [{ name: 'user_id', value: { bytes: Buffer.from('é'), text: 'Ã©' } }])
})

void t.test('a part in a charset of its own busboy cannot decode is refused', async (t) => {
  const body = form([
    ['name="user_id"\r\nContent-Type: text/plain; charset=shift_jis', Buffer.from([0x82, 0xa0])],
  ])
  const error = await parseForm(body, { contentType: TYPE, maxFieldBytes: 64 }).catch(
    (error: unknown) => error,
  )
  t.ok(error instanceof GatewayError && error.status === 400, 'a 400, not a thrown listener')
  const output = rewriteForm(
    { stream: Readable.from([body]), contentType: TYPE, maxFieldBytes: 64 },
    [{ set: [{ name: 'user_id', value: 'alice', always: true }] }],
  )
  await t.rejects(output.body.toArray(), /Invalid multipart body/, 'the rewrite fails its output')
})

void t.test('a rewrite: client bytes unchanged, values in the form charset', async (t) => {
  const client = [
    ['name="session_id"', Buffer.from('sesión-α')],
    ['name="raw"', Buffer.from([0xff, 0xfe, 0x00, 0x80])],
    ['name="user_id"', Buffer.from('mallory')],
  ] as const
  const seen: string[] = []
  const rewrite = (contentType: string, userId: string) =>
    rewriteForm({ stream: Readable.from([form(client)]), contentType, maxFieldBytes: 64 }, [
      { set: [{ name: 'user_id', value: userId, always: false }] },
      {
        screen: {
          names: new Set(['session_id']),
          screen: async (_name, value) => {
            seen.push(value)
            return value
          },
        },
      },
    ])
  const utf8 = rewrite(TYPE, 'jürgen')
  t.match(utf8.contentType, /^multipart\/form-data; boundary=----portcullis[0-9a-f]{24}$/)
  const parts = await parseMultipart(utf8.body, utf8.contentType)
  t.same(
    parts.map((part) => [part.name, Buffer.from(part.value ?? '', 'latin1')]),
    [
      ['session_id', Buffer.from('sesión-α')],
      ['raw', Buffer.from([0xff, 0xfe, 0x00, 0x80])],
      ['user_id', Buffer.from('jürgen')],
    ],
  )
  t.same(seen, ['sesión-α'], 'the screen read the text the upstream reads')

  const latin = rewrite(`${TYPE}; charset=ISO-8859-1`, 'jürgen')
  t.match(latin.contentType, /; charset=latin-1$/, 'the charset read with is declared')
  const latinParts = await parseMultipart(latin.body, latin.contentType)
  t.same(latinParts.at(-1), { name: 'user_id', value: 'jürgen' }, 'one byte per character')
  t.same(seen.at(-1), 'sesiÃ³n-Î±')

  const beyond = rewrite(`${TYPE}; charset=latin1`, '李')
  await t.rejects(beyond.body.toArray(), /Unsupported multipart charset: latin-1/)
})
