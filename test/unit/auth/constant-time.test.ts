import t from 'tap'
import { safeEqual, SecretMatcher } from '../../../src/auth/constant-time.js'

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

void t.test('a secret matcher compares as safeEqual does', async (t) => {
  const secrets = ['root-key', '', 'ключ', 'a'.repeat(100_000)]
  const presented = [
    'root-key',
    'root-kez',
    'root-key ',
    'root',
    '',
    'x',
    'ключ',
    'a'.repeat(100_000),
  ]
  for (const secret of secrets) {
    const matcher = new SecretMatcher(secret)
    for (const candidate of presented) {
      t.equal(
        matcher.matches(candidate),
        safeEqual(candidate, secret),
        `${secret.slice(0, 10)} / ${candidate.slice(0, 10)}`,
      )
    }
    t.ok(matcher.matches(secret), 'the secret itself')
  }
})
