import t from 'tap'
import { parseTarget, stripTrailingSlashes, unquote } from '../../../demo/runtime/target.js'

void t.test('paths are percent-decoded once, like Python unquote', async (t) => {
  t.equal(unquote('/a%2Fb'), '/a/b')
  t.equal(unquote('/%E2%9C%93'), '/✓')
  t.equal(unquote('/%252F'), '/%2F')
  t.equal(unquote('/100%zz'), '/100%zz')
  t.equal(unquote('/%FF'), '/\uFFFD')
})

void t.test('trailing slashes are stripped like AgentOS does', async (t) => {
  t.equal(stripTrailingSlashes('/'), '/')
  t.equal(stripTrailingSlashes('//'), '//')
  t.equal(stripTrailingSlashes('/agents///'), '/agents')
  t.equal(stripTrailingSlashes('/agents'), '/agents')
})

void t.test('request targets split into path and repeated query values', async (t) => {
  t.same(parseTarget('/x?a=1&a=2&b=&c=%20+'), {
    path: '/x',
    query: { a: ['1', '2'], b: [''], c: ['  '] },
  })
  t.same(parseTarget('http://host:1/y%20z?q=1'), { path: '/y z', query: { q: ['1'] } })
  t.same(parseTarget('/p#frag'), { path: '/p', query: {} })
})
