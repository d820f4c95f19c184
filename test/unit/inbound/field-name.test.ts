import t from 'tap'
import { FieldNames, sameFieldName } from '../../../src/inbound/field-name.js'

void t.test('field names are the same name in any case of their letters', async (t) => {
  t.ok(sameFieldName('authorization', 'authorization'))
  t.ok(sameFieldName('Authorization', 'authorization'))
  t.ok(sameFieldName('AUTHORIZATION', 'Authorization'))
  t.ok(sameFieldName('X-Agent-ID', 'x-agent-id'))
  t.ok(sameFieldName('', ''))
})

void t.test('anything else is another name', async (t) => {
  t.notOk(sameFieldName('authorization', 'authorizatio'), 'another length')
  t.notOk(sameFieldName('cookie', 'cookie2'))
  t.notOk(sameFieldName('x-agent_id', 'x-agent-id'), '_ is not -')
  // Characters 0x20 apart that are not letters: only letters have a second case.
  t.notOk(sameFieldName('a@b', 'a`b'))
  t.notOk(sameFieldName('a[b', 'a{b'))
  t.notOk(sameFieldName('a\u00c0b', 'a\u00e0b'), 'a letter outside ASCII is not folded')
  t.notOk(sameFieldName('a\u0000', 'a '))
})

void t.test('field names: a raw name found among a few, in any case, as listed', async (t) => {
  const names = new FieldNames(['te', 'connection', 'keep-alive', 'Content-Type', 'x-agent-id'])
  t.equal(names.find('connection'), 'connection')
  t.equal(names.find('Keep-Alive'), 'keep-alive', 'the lowercase spelling')
  t.equal(names.find('CONTENT-TYPE'), 'content-type', 'listed in any case, found lowercase')
  t.equal(names.find('tE'), 'te')
  for (const other of ['', 't', 'tee', 'x-trace-id', 'connectio', 'connection2', 'x_agent-id'])
    t.equal(names.find(other), undefined, `${JSON.stringify(other)}: none`)
  t.equal(names.find('conn\u00c9ction'), undefined, 'a letter outside ASCII is not folded')
  t.equal(names.find('connection'.padEnd(5_000, 'x')), undefined, 'a very long name')
  t.equal(new FieldNames([]).find('te'), undefined, 'no names')
  t.throws(() => new FieldNames(['x'.repeat(49)]), RangeError, 'a name too long to list')
})

void t.test('field names in bytes: the same answers as in strings', async (t) => {
  const listed = ['te', 'connection', 'keep-alive', 'x-request-id', 'content-type', 'upgrade']
  const names = new FieldNames(listed)
  // Every listed name in random cases, with a character changed, and other names of their lengths.
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_@`[{\u00c0\u00e0'
  let seed = 7
  const random = (below: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % below
  for (let round = 0; round < 2_000; round++) {
    const base = listed[random(listed.length)] as string
    let raw = [...base].map((c) => (random(2) === 0 ? c.toUpperCase() : c)).join('')
    if (random(3) === 0) {
      const at = random(raw.length)
      raw = raw.slice(0, at) + (letters[random(letters.length)] as string) + raw.slice(at + 1)
    }
    const expected = listed.includes(raw.toLowerCase()) && [...raw].every((c) => c < '\u0080')
    const bytes = Buffer.from(raw, 'latin1')
    t.equal(names.find(raw), expected ? raw.toLowerCase() : undefined, raw)
    t.equal(names.findBytes(bytes), expected ? raw.toLowerCase() : undefined, `${raw} in bytes`)
  }
  t.equal(names.findBytes(Buffer.alloc(5_000, 0x61)), undefined, 'a very long name')
})
