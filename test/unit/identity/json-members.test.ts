import fc from 'fast-check'
import t from 'tap'
import { pinJsonMembers } from '../../../src/identity/json-members.js'

void t.test('pinJsonMembers: any JSON object keeps every other member exactly', async (t) => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.string(),
      fc.boolean(),
      (object, value, pretty) => {
        const text = pretty ? JSON.stringify(object, null, 2) : JSON.stringify(object)
        const result = pinJsonMembers(
          Buffer.from(text),
          [{ name: 'user_id', value, always: true }],
          [],
        )
        if (result.kind !== 'object') return false
        const parsed = JSON.parse(result.body.toString('utf8')) as Record<string, unknown>
        const expected = JSON.parse(text) as Record<string, unknown>
        expected['user_id'] = value
        return JSON.stringify(byKey(parsed)) === JSON.stringify(byKey(expected))
      },
    ),
  )
  t.pass('property holds')
})

function byKey(object: Record<string, unknown>): [string, unknown][] {
  return Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}
