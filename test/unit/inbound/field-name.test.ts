import t from 'tap'
import { NameLengths, sameFieldName } from '../../../src/inbound/field-name.js'

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

void t.test('name lengths: whether a name could be one of the names, by its length', async (t) => {
  const lengths = new NameLengths(['te', 'connection', 'x-a-field-name-longer-than-32-chars'])
  t.ok(lengths.has(2))
  t.ok(lengths.has(10))
  t.ok(lengths.has('x-a-field-name-longer-than-32-chars'.length), 'a length past 31')
  for (const other of [0, 1, 3, 9, 11, 31, 32, 33, 64, 1_000])
    t.notOk(lengths.has(other), `${other}`)
  t.notOk(new NameLengths([]).has(0), 'no names, no length')
})
