import t from 'tap'
import { connectionListed } from '../../../src/upstream/hop-by-hop.js'

void t.test('the fields a Connection header lists, lowercased, its options left out', async (t) => {
  t.equal(connectionListed(undefined), undefined)
  t.equal(connectionListed('keep-alive'), undefined)
  t.equal(connectionListed('close'), undefined)
  t.equal(connectionListed('Keep-Alive, close'), undefined)
  t.same(connectionListed('keep-alive, X-Secret'), new Set(['x-secret']))
  t.same(connectionListed(['close', ' X-A ,x-b']), new Set(['x-a', 'x-b']))
  t.same(connectionListed('X-Upstream-Private'), new Set(['x-upstream-private']))
})
