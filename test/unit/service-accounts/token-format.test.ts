import { createHash } from 'node:crypto'
import t from 'tap'
import { credentialDigest } from '../../../src/auth/credential.js'
import {
  DISPLAY_PREFIX_LENGTH,
  TOKEN_LENGTH,
  checkTokenShape,
  digestOfStoredHash,
  hashToken,
  mintToken,
  storedHash,
} from '../../../src/service-accounts/token-format.js'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

void t.test('a token is svc_pat_ + 43 base62 + 6 base62 checksum, 57 characters', async (t) => {
  t.equal(TOKEN_LENGTH, 57)
  const seen = new Set<string>()
  const problems: string[] = []
  for (let index = 0; index < 500; index += 1) {
    const { token, hash, prefix } = mintToken()
    if (!/^svc_pat_[0-9A-Za-z]{49}$/.test(token)) problems.push(`shape ${token.length}`)
    if (checkTokenShape(token) !== 'ok') problems.push('own checksum refused')
    // SHA-256 of the whole token, prefix included.
    if (hash !== createHash('sha256').update(token).digest('hex')) problems.push('hash')
    if (hashToken(token) !== hash) problems.push('hashToken')
    if (prefix !== token.slice(0, 16)) problems.push('prefix')
    seen.add(token)
  }
  t.same(problems, [], '500 minted tokens are well formed')
  t.equal(DISPLAY_PREFIX_LENGTH, 16)
  t.equal(seen.size, 500, 'no repeats')
})

void t.test('the body is left-padded to a fixed width at both extremes', async (t) => {
  const zero = mintToken((size) => new Uint8Array(size))
  t.equal(zero.token.slice(8, 51), '0'.repeat(43))
  t.equal(checkTokenShape(zero.token), 'ok')
  t.equal(zero.prefix, 'svc_pat_00000000', 'prefix: svc_pat_ and 8 body characters')
  const max = mintToken((size) => new Uint8Array(size).fill(0xff))
  t.equal(max.token.length, 57)
  t.equal(checkTokenShape(max.token), 'ok')
  t.not(max.token.slice(8, 9), '0')
})

void t.test('every single-character substitution in a sample is rejected', async (t) => {
  let substitutions = 0
  for (let sample = 0; sample < 10; sample += 1) {
    const { token } = mintToken()
    for (let position = 0; position < token.length; position += 1) {
      for (const replacement of ALPHABET + '_') {
        if (replacement === token[position]) continue
        const mutated = token.slice(0, position) + replacement + token.slice(position + 1)
        const shape = checkTokenShape(mutated)
        const expected = position < 8 ? 'charset' : replacement === '_' ? 'charset' : 'checksum'
        if (shape !== expected) t.fail(`${position}:${replacement} gave ${shape}`)
        substitutions += 1
      }
    }
  }
  t.ok(substitutions > 30_000, `${substitutions} substitutions, none accepted`)
})

void t.test('shape failures say what is wrong', async (t) => {
  const { token } = mintToken()
  t.equal(checkTokenShape(token.slice(0, -1)), 'length')
  t.equal(checkTokenShape(`${token}0`), 'length')
  t.equal(checkTokenShape('svc_pat_'), 'length')
  t.equal(checkTokenShape(`${token.slice(0, 20)}-${token.slice(21)}`), 'charset')
  t.equal(checkTokenShape(`${token.slice(0, 20)}é${token.slice(21)}`), 'charset')
  t.equal(checkTokenShape(`SVC_PAT_${token.slice(8)}`), 'charset')
  t.equal(checkTokenShape(token.slice(0, 51) + token.slice(52) + token.charAt(51)), 'checksum')
})

void t.test(
  'the characters beside each base62 range are refused in body and checksum',
  async (t) => {
    const { token } = mintToken()
    for (const position of [8, 30, 51, 56]) {
      for (const outside of ['/', ':', '@', '[', '`', '{', '\u007f', '\u0000', '\u0130']) {
        const mutated = token.slice(0, position) + outside + token.slice(position + 1)
        t.equal(checkTokenShape(mutated), 'charset', `${JSON.stringify(outside)} at ${position}`)
      }
    }
  },
)

void t.test(
  'minting is stable: the same bytes give the same token, checksum and hash',
  async (t) => {
    const vectors = [
      [
        0x00,
        'svc_pat_00000000000000000000000000000000000000000002CZclj',
        '3debd6c64534d9688c4416537edfd5595b19bb0e658f5a0ae785727008b1d845',
      ],
      [
        0x5a,
        'svc_pat_LQNUGZHT5u543eF8cvF8tKdPlcVkNSYQAq1KIqZ6f741KMW3W',
        '6846b4fcefcefa4b68997a49642a2f8b7bb6503ebf2e8b1683454a3f17b4dde3',
      ],
      [
        0xff,
        'svc_pat_yhjskwdA6OZ1AL1YmHWZWm8LLG7HjnuCA2j5rOw8Xp13sRzl1',
        '6bcfbb3ac083bd4749df8a2b0402e898c842e3f546466d4b803f7c858a21e307',
      ],
    ] as const
    for (const [fill, token, hash] of vectors) {
      const minted = mintToken((size) => new Uint8Array(size).fill(fill))
      t.equal(minted.token, token)
      t.equal(minted.hash, hash)
      t.equal(hashToken(token), hash)
      t.equal(checkTokenShape(token), 'ok')
    }
  },
)

void t.test('in memory a token hash is its 32 bytes, 32 characters; stored, 64 hex', async (t) => {
  const { token, hash } = mintToken((size) => new Uint8Array(size).fill(0xff))
  const digest = credentialDigest(token)
  t.equal(digest.length, 32)
  t.equal(digest, createHash('sha256').update(token).digest().toString('latin1'))
  t.equal(storedHash(digest), hash, 'the store is asked with the hex it keeps')
  t.equal(digestOfStoredHash(hash), digest, 'a revocation from the store finds the cache key')
})
