/**
 * The edits of a multipart form composed into one pass: each edit sees the parts as the edits
 * before it left them, as if each had rewritten the whole body in turn.
 */
import { Readable } from 'node:stream'
import t from 'tap'
import {
  FormEditChain,
  type FieldScreen,
  type FieldValue,
  type FormEdit,
  type PartWriter,
} from '../../../src/inbound/form-edits.js'
import { parseMultipart } from '../identity/helpers.js'
import { rewriteForm } from '../../../src/inbound/multipart-rewriter.js'

/** What the chain writes, in order; deferred values resolved in that order. */
function recorder(): { writer: PartWriter; written: () => Promise<string[]> } {
  const entries: (() => Promise<string>)[] = []
  const show = (name: string, value: FieldValue): string =>
    `${name}=${value.text}${value.bytes === undefined ? ' (ours)' : ''}`
  const writer: PartWriter = {
    field(name, value, held) {
      entries.push(async () => {
        const resolved = typeof value === 'function' ? await value() : value
        return `${show(name, resolved)} held ${held}`
      })
    },
    file(head, content) {
      entries.push(async () => `${head.name}: ${Buffer.concat(await content.toArray()).toString()}`)
    },
    settle(value, held) {
      entries.push(async () => `settled ${JSON.stringify(await value())} held ${held}`)
    },
  }
  const written = async () => {
    const out: string[] = []
    for (const entry of entries) out.push(await entry())
    return out
  }
  return { writer, written }
}

/** A client's value, with the bytes it came as. */
function sent(text: string): FieldValue {
  return { text, bytes: Buffer.from(text) }
}

function screenOf(names: string[], answer: (value: string) => string, seen: string[]): FieldScreen {
  return {
    names: new Set(names),
    async screen(name, value) {
      seen.push(`${name}=${value}`)
      return answer(value)
    },
  }
}

void t.test('settings: where the first client copy was, or first; files dropped', async (t) => {
  const { writer, written } = recorder()
  const chain = new FormEditChain(
    [
      {
        set: [
          { name: 'user_id', value: 'alice', always: true },
          { name: 'tag', value: 'ours', always: false },
        ],
      },
    ],
    writer,
  )
  chain.start()
  chain.field('message', sent('hi'))
  chain.field('tag', sent('theirs'))
  const dropped = Readable.from([Buffer.from('spoof')])
  chain.file({ name: 'user_id' }, dropped)
  chain.field('tag', sent('again'))
  chain.file({ name: 'doc', filename: 'a.txt' }, Readable.from([Buffer.from('data')]))
  t.same(await written(), [
    'user_id=alice (ours) held 5',
    'message=hi held 2',
    'tag=ours (ours) held 4',
    'doc: data',
  ])
  t.equal(dropped.readableFlowing, true, 'a dropped file is drained, not held')
})

void t.test('edits in order: a later setting first, a screen sees what came before', async (t) => {
  const { writer, written } = recorder()
  const seen: string[] = []
  const edits: FormEdit[] = [
    { set: [{ name: 'a', value: 'first', always: true }] },
    { screen: screenOf(['a', 'b'], (value) => value.toUpperCase(), seen) },
    { set: [{ name: 'b', value: 'second', always: true }] },
    { screen: screenOf(['b'], (value) => value, seen) },
  ]
  const chain = new FormEditChain(edits, writer)
  chain.start()
  chain.field('b', sent('client'))
  t.same(await written(), [
    'b=second (ours) held 6',
    'a=FIRST (ours) held 5',
    'settled {"text":"CLIENT"} held 6',
  ])
  t.same(
    seen,
    ['b=second', 'a=first', 'b=client'],
    "the later setting is not screened by the earlier screen; the client's b is, then dropped",
  )
})

void t.test(
  'one rewrite of a stream applies every edit; a rejecting screen fails it',
  async (t) => {
    const boundary = 'b0'
    const form =
      `--${boundary}\r\nContent-Disposition: form-data; name="version"\r\n\r\n1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="user_id"\r\n\r\nx\r\n` +
      `--${boundary}--\r\n`
    const contentType = `multipart/form-data; boundary=${boundary}`
    const seen: string[] = []
    const edits: FormEdit[] = [
      { set: [{ name: 'user_id', value: 'é-ours', always: true }] },
      { screen: screenOf(['user_id', 'version'], (value) => value, seen) },
    ]
    const output = rewriteForm(
      { stream: Readable.from([Buffer.from(form)]), contentType, maxFieldBytes: 64 },
      edits,
    )
    const parts = await parseMultipart(output.body, output.contentType)
    t.same(
      parts.map((part) => [part.name, Buffer.from(part.value ?? '', 'latin1').toString('utf8')]),
      [
        ['user_id', 'é-ours'],
        ['version', '1'],
      ],
      'a pinned value goes as UTF-8, even screened',
    )
    t.same(seen, ['user_id=é-ours', 'version=1'])
    const screenedThenSet = rewriteForm(
      { stream: Readable.from([Buffer.from(form)]), contentType, maxFieldBytes: 64 },
      [
        { screen: screenOf(['version'], (value) => value, seen) },
        { set: [{ name: 'version', value: '2', always: false }] },
      ],
    )
    const replaced = await parseMultipart(screenedThenSet.body, screenedThenSet.contentType)
    t.same(
      replaced.map((part) => `${part.name}=${part.value}`),
      ['version=2', 'user_id=x'],
    )
    t.same(seen.slice(2), ['version=1'], 'screened, then replaced')
    const refusing = rewriteForm(
      { stream: Readable.from([Buffer.from(form)]), contentType, maxFieldBytes: 64 },
      [{ screen: { names: new Set(['version']), screen: () => Promise.reject(new Error('no')) } }],
    )
    await t.rejects(refusing.body.toArray(), /no/, 'the output fails before its end')
  },
)
