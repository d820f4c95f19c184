// eslint-disable-next-line no-restricted-syntax -- the constant-time comparisons live here
import { hash, timingSafeEqual } from 'node:crypto'

/**
 * Constant-time string equality. Both sides are hashed first so that the comparison takes the
 * same time whatever the lengths: timingSafeEqual alone throws on a length mismatch, and an early
 * return on length would tell an attacker the key's length.
 */
export function safeEqual(a: string, b: string): boolean {
  // eslint-disable-next-line no-restricted-syntax -- the one constant-time comparison of strings
  return timingSafeEqual(digestOf(a), digestOf(b))
}

/**
 * A configured secret (the security key, the scheduler token) that presented strings are compared
 * with as `safeEqual` compares them: the secret's digest is made once, so a request hashes only
 * what it presented.
 */
export class SecretMatcher {
  readonly #digest: Buffer

  constructor(secret: string) {
    this.#digest = digestOf(secret)
  }

  matches(presented: string): boolean {
    return equalDigests(digestOf(presented), this.#digest)
  }
}

function digestOf(text: string): Buffer {
  return hash('sha256', text, 'buffer')
}

/**
 * Constant-time equality of two digests (an HMAC signature against the expected one). A digest's
 * length is public (it is the algorithm's), so a length mismatch may return at once.
 */
export function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  // eslint-disable-next-line no-restricted-syntax -- the constant-time comparison of digests
  return a.length === b.length && timingSafeEqual(a, b)
}
