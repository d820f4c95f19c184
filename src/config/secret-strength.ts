import type { Config } from './schema.js'

/** The shortest security key or scheduler token accepted: a key anyone could guess protects nothing. */
export const MIN_SECRET_CHARACTERS = 32

/** How to make a good secret of `bytes` random bytes (its base64 text is longer still). */
export function makeOne(bytes: number): string {
  return `make one with: openssl rand -base64 ${bytes}`
}

/** The shared secrets the configuration holds that are too short to be safe, one line each. */
export function weakSecretProblems(
  auth: Pick<Config['auth'], 'security_key' | 'internal_service_token'>,
): string[] {
  const problems: string[] = []
  for (const key of ['security_key', 'internal_service_token'] as const) {
    const value = auth[key]
    // Empty: a reference that did not resolve, already reported as such.
    if (value === null || value === '') continue
    const length = [...value].length
    if (length < MIN_SECRET_CHARACTERS) {
      problems.push(
        `auth.${key}: too short (${length} characters); a shared secret needs at least ${MIN_SECRET_CHARACTERS} random characters, ${makeOne(MIN_SECRET_CHARACTERS)}`,
      )
    }
  }
  return problems
}

/**
 * Why an HMAC key is too short for `algorithm` (HS256, HS384, HS512), or undefined: RFC 7518
 * §3.2 requires a key at least as long as the hash output (32, 48 or 64 bytes).
 */
export function hmacKeyProblem(byteLength: number, algorithm: string): string | undefined {
  const needed = Number(algorithm.slice(2)) / 8
  if (byteLength >= needed) return undefined
  return `too short for ${algorithm} (${byteLength} bytes); RFC 7518 §3.2 requires at least ${needed} bytes, ${makeOne(needed)}`
}
