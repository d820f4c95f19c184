import t from 'tap'
import type { FieldPin } from '../../../src/identity/field-pin.js'
import { rewriteFieldList } from '../../../src/identity/url-encoded-fields.js'

const always = (name: string, value: string): FieldPin => ({ name, value, always: true })
const present = (name: string, value: string): FieldPin => ({ name, value, always: false })

void t.test('an empty list gets the pins that always apply, encoded, in order', async (t) => {
  const pins = [always('user_id', 'sa:ci bot'), present('session_id', 's-1'), always('x', 'é')]
  const rewrite = rewriteFieldList('', 'query', pins, ['session_id'])
  t.equal(rewrite.text, 'user_id=sa%3Aci%20bot&x=%C3%A9')
  t.equal(rewrite.changed, true)
  t.equal(rewrite.observed.size, 0, 'nothing to observe in an empty list')
  t.same(
    rewriteFieldList('a=1', 'query', pins, []).text,
    'a=1&user_id=sa%3Aci%20bot&x=%C3%A9',
    'the same pins after a field, as the general path writes them',
  )
})

void t.test('an empty list with no pin that always applies is unchanged', async (t) => {
  for (const pins of [[], [present('user_id', 'alice')]]) {
    const rewrite = rewriteFieldList('', 'form', pins, ['user_id'])
    t.same({ text: rewrite.text, changed: rewrite.changed }, { text: '', changed: false })
    t.equal(rewrite.observed.size, 0)
  }
})

void t.test('a client copy of a pinned field is replaced, the others kept', async (t) => {
  const rewrite = rewriteFieldList(
    'user%5Fid=bob&limit=5',
    'query',
    [always('user_id', 'sa:ci')],
    [],
  )
  t.equal(rewrite.text, 'limit=5&user_id=sa%3Aci')
  t.equal(rewrite.changed, true)
})
