import t from 'tap'
import { detailOf } from '../../../src/cli/gateway-client.js'

void t.test('a text detail is printed as it is', async (t) => {
  t.equal(detailOf({ detail: 'Invalid scope(s): bogus' }), 'Invalid scope(s): bogus')
})

void t.test('a 422: the first problem in words, and how many more', async (t) => {
  t.equal(
    detailOf({
      detail: [
        {
          type: 'string_too_long',
          loc: ['body', 'name'],
          msg: 'String should have at most 63 characters',
          input: 'x'.repeat(64),
          ctx: { max_length: 63 },
        },
      ],
    }),
    `name: String should have at most 63 characters (got "${'x'.repeat(64)}")`,
  )
  t.equal(
    detailOf({
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'scopes', 0, 'effect'],
          msg: "Value error, only effect 'allow' is supported: token scopes are grants",
          input: 'deny',
        },
        { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: {} },
        { type: 'missing', loc: ['body', 'x'], msg: 'Field required', input: {} },
      ],
    }),
    `scopes.0.effect: only effect 'allow' is supported: token scopes are grants (got "deny") (and 2 more problem(s); --json lists all)`,
  )
  t.equal(
    detailOf({ detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] }),
    'body: Field required',
    'a problem with the whole body',
  )
  t.equal(
    detailOf({
      detail: [
        {
          type: 'int_parsing',
          loc: ['query', 'page'],
          msg: 'Input should be a valid integer',
          input: 'x',
        },
      ],
    }),
    'page: Input should be a valid integer (got "x")',
  )
})

void t.test('anything else is shown as JSON', async (t) => {
  t.equal(detailOf({ detail: [1, 2] }), '[1,2]')
  t.equal(detailOf({ detail: { odd: true } }), '{"odd":true}')
  t.equal(detailOf('Bad Gateway'), '"Bad Gateway"')
  t.equal(detailOf(undefined), '(no body)', 'an empty answer')
})
