import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/service-accounts/token-format.js'
import {
  benchClaims,
  freshTokens,
  generateSigningKey,
  signJwt,
  type JwtAlgorithm,
  type SigningKey,
} from '../lib/jwt.js'

/** The JWT material of one algorithm: the key, one repeated token, a file of fresh ones. */
export interface JwtMaterial {
  readonly key: SigningKey
  readonly repeated: string
  readonly freshFile: string
  readonly freshCount: number
}

/**
 * Distinct tokens per file. The gateway's verified-JWT cache keeps 10,000 (LRU, the default), and
 * each run continues the cycle where the last one ended, so every "fresh" request is a miss.
 */
export const FRESH_TOKENS = 20_000

export function jwtMaterial(alg: JwtAlgorithm, dir: string, count = FRESH_TOKENS): JwtMaterial {
  const key = generateSigningKey(alg)
  const now = Math.floor(Date.now() / 1000)
  const repeated = signJwt(key, benchClaims(0, now))
  const freshFile = join(dir, `fresh-${alg}.txt`)
  writeFileSync(freshFile, `${freshTokens(key, count, now).join('\n')}\n`)
  return { key, repeated, freshFile, freshCount: count }
}

/** The same token with its last signature characters changed. */
export function forge(token: string): string {
  const tail = token.endsWith('AAAA') ? 'BBBB' : 'AAAA'
  return `${token.slice(0, -4)}${tail}`
}

/** A well-formed service-account token (valid checksum) that no store holds. */
export function unknownServiceToken(): string {
  return mintToken().token
}

/**
 * The address the 429 scenario poses as (X-Forwarded-For; the gateways trust 127.0.0.1), apart
 * from the flood phase's, so only its own failures trip the throttle.
 */
export const THROTTLED_ADDRESS = '127.0.0.4'

/** Well-formed unknown service-account tokens, one a line: the flood. */
export function unknownServiceTokens(dir: string, count: number): string {
  const file = join(dir, 'unknown-svc-tokens.txt')
  const tokens: string[] = []
  for (let n = 0; n < count; n++) tokens.push(unknownServiceToken())
  writeFileSync(file, `${tokens.join('\n')}\n`)
  return file
}

export function securityKey(): string {
  return `bench-security-key-${randomBytes(16).toString('hex')}`
}
