// eslint-disable-next-line no-restricted-syntax -- the one constant-time comparison
import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Constant-time string equality. Both sides are hashed first so that the comparison takes the
 * same time whatever the lengths: timingSafeEqual alone throws on a length mismatch, and an early
 * return on length would tell an attacker the key's length.
 */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest()
  const right = createHash('sha256').update(b, 'utf8').digest()
  // eslint-disable-next-line no-restricted-syntax -- the one constant-time comparison
  return timingSafeEqual(left, right)
}
