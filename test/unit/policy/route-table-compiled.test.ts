import t from 'tap'
import { SCOPE_MAPPINGS_2_9 } from '../../../src/policy/catalogue/agentos-2.9.js'
import { RouteTable } from '../../../src/policy/route-table.js'

void t.test('rules are compiled once; match does no per-call compilation', async (t) => {
  const table = RouteTable.fromConfig({
    defaults: SCOPE_MAPPINGS_2_9,
    scopeMappings: { 'GET /reports/{id}': ['reports:read'] },
  })
  const first = table.match('GET', '/agents/a1')
  t.equal(table.match('GET', '/agents/a2/runs'), first, 'the same precompiled match object')
  t.ok(first !== undefined && Object.isFrozen(first) && Object.isFrozen(first.scopes))
  t.ok(Object.isFrozen(table.entries))

  let regexUses = 0
  const original = Object.getOwnPropertyDescriptor(RegExp.prototype, 'exec')
  const exec = original?.value as RegExp['exec']
  const OriginalRegExp = globalThis.RegExp
  Object.defineProperty(RegExp.prototype, 'exec', {
    ...original,
    value: new Proxy(exec, {
      apply(target, self: RegExp, args: [string]) {
        regexUses += 1
        return Reflect.apply(target, self, args)
      },
    }),
  })
  globalThis.RegExp = new Proxy(OriginalRegExp, {
    construct(target, args: [string | RegExp, string?]) {
      regexUses += 1
      return new target(...args)
    },
  })
  let spiesWork = false
  try {
    spiesWork = /x/.test('x') && new RegExp('y').test('y') && regexUses === 3
    regexUses = 0
    for (let i = 0; i < 1000; i += 1) {
      table.match('GET', `/reports/r${i}`)
      table.match('POST', `/agents/a${i}/runs/r/cancel`)
      table.match('GET', `/nothing/${i}`)
    }
  } finally {
    if (original !== undefined) Object.defineProperty(RegExp.prototype, 'exec', original)
    globalThis.RegExp = OriginalRegExp
  }
  t.ok(spiesWork, 'the spies see regex construction and use')
  t.equal(regexUses, 0, 'no RegExp is built or run while matching')
})
