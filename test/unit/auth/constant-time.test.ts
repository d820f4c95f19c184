import t from 'tap'
import { safeEqual } from '../../../src/auth/constant-time.js'

void t.test('safeEqual compares exactly', async (t) => {
  t.equal(safeEqual('root-key', 'root-key'), true)
  t.equal(safeEqual('root-key', 'root-kez'), false)
  t.equal(safeEqual('root-key', 'root-key '), false, 'a longer string')
  t.equal(safeEqual('root-key', 'root'), false, 'a prefix')
  t.equal(safeEqual('', ''), true)
  t.equal(safeEqual('', 'x'), false)
  t.equal(safeEqual('ключ', 'ключ'), true, 'non-ASCII')
  t.equal(safeEqual('a'.repeat(100_000), 'a'.repeat(100_000)), true, 'lengths beyond a digest')
  t.doesNotThrow(() => safeEqual('short', 'x'.repeat(1000)), 'different lengths never throw')
})
