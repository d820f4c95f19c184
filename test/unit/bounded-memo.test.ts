import t from 'tap'
import { BoundedMemo } from '../../src/bounded-memo.js'

void t.test('a remembered value is returned until the table starts over', async (t) => {
  const memo = new BoundedMemo<number>(2)
  t.equal(memo.lookup('a'), undefined)
  t.equal(memo.remember('a', 1), 1)
  t.equal(memo.lookup('a'), 1)
  memo.remember('b', 2)
  memo.remember('c', 3)
  t.equal(memo.lookup('a'), undefined, 'full: the old entries were dropped')
  t.equal(memo.lookup('c'), 3)
})

void t.test('false is a remembered answer, not a miss (trusted-proxy answers)', async (t) => {
  const memo = new BoundedMemo<boolean>(4)
  let checks = 0
  const has = (key: string) =>
    memo.lookup(key) ??
    memo.remember(
      key,
      (() => {
        checks += 1
        return false
      })(),
    )
  t.equal(has('10.0.0.1'), false)
  t.equal(has('10.0.0.1'), false)
  t.equal(checks, 1)
})
