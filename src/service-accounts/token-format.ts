import { hash, randomBytes } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { SERVICE_TOKEN_PREFIX } from '../auth/credential.js'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_BYTES = 32
/** 62^43 > 2^256, so 43 base62 digits hold any 32-byte value. */
const BODY_LENGTH = 43
/** 62^6 > 2^32, so 6 base62 digits hold any CRC32. */
const CHECKSUM_LENGTH = 6
const BODY_START = SERVICE_TOKEN_PREFIX.length
const CHECKSUM_START = BODY_START + BODY_LENGTH

/** `svc_pat_` + 43-character body + 6-character checksum. */
export const TOKEN_LENGTH = CHECKSUM_START + CHECKSUM_LENGTH

/**
 * The display prefix stored and listed with an account: `svc_pat_` plus the first 8 body
 * characters (as AgentOS, the first 16 characters of the plaintext). It identifies a token to a
 * person; 8 of its 51 secret base62 characters leave well over 200 bits unknown.
 */
export const DISPLAY_PREFIX_LENGTH = 16

const TOKEN_PATTERN = new RegExp(
  `^${SERVICE_TOKEN_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`,
)

/** Each base62 digit's value by its character code (ASCII; the pattern admits nothing else). */
const DIGIT_VALUES = new Uint8Array(128)
for (let digit = 0; digit < ALPHABET.length; digit++)
  DIGIT_VALUES[ALPHABET.charCodeAt(digit)] = digit

export type TokenShape = 'ok' | 'length' | 'charset' | 'checksum'

export interface MintedToken {
  /** The plaintext; shown to the caller once and never stored. */
  readonly token: string
  /** SHA-256 (lowercase hex) of the whole plaintext, prefix included: the lookup key. */
  readonly hash: string
  readonly prefix: string
}

function toBase62(value: bigint, width: number): string {
  let digits = ''
  let rest = value
  while (rest > 0n) {
    digits = ALPHABET.charAt(Number(rest % 62n)) + digits
    rest /= 62n
  }
  return digits.padStart(width, '0')
}

/** Base62 of the body's CRC32, as a minted token ends. */
function checksumOf(body: string): string {
  let rest = crc32(body)
  let digits = ''
  while (rest > 0) {
    digits = ALPHABET.charAt(rest % 62) + digits
    rest = Math.floor(rest / 62)
  }
  return digits.padStart(CHECKSUM_LENGTH, '0')
}

/** Mints a token from 32 CSPRNG bytes; `random` is injectable for tests only. */
export function mintToken(random: (size: number) => Uint8Array = randomBytes): MintedToken {
  const bytes = random(RANDOM_BYTES)
  const body = toBase62(BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`), BODY_LENGTH)
  const token = `${SERVICE_TOKEN_PREFIX}${body}${checksumOf(body)}`
  return { token, hash: hashToken(token), prefix: token.slice(0, DISPLAY_PREFIX_LENGTH) }
}

/**
 * Rejects a mistyped or made-up token without a lookup. A wrong prefix counts as `charset`. The
 * checksum is no defence against guessing (anyone can compute it), only against typos.
 */
export function checkTokenShape(token: string): TokenShape {
  if (token.length !== TOKEN_LENGTH) return 'length'
  if (!TOKEN_PATTERN.test(token)) return 'charset'
  // The checksum read as its number, not the CRC written as text: it runs for every token no cache
  // knows, a flood's included. Six digits name each number below 62^6 once, so the number matches
  // where the text would.
  let checksum = 0
  for (let index = CHECKSUM_START; index < TOKEN_LENGTH; index++) {
    checksum = checksum * 62 + (DIGIT_VALUES[token.charCodeAt(index)] as number)
  }
  // eslint-disable-next-line no-restricted-syntax -- a CRC of the caller's own input: public, for typos
  return crc32(token.slice(BODY_START, CHECKSUM_START)) === checksum ? 'ok' : 'checksum'
}

/** SHA-256 (lowercase hex) of a token: the form the store keeps and looks up. */
export function hashToken(token: string): string {
  // The one-shot hash: no Hash object per presented token.
  return hash('sha256', token, 'hex')
}

/** The stored (hex) form of a token's in-memory digest (`credentialDigest`). */
export function storedHash(digest: string): string {
  return Buffer.from(digest, 'latin1').toString('hex')
}

/** The in-memory digest (`credentialDigest`) of a stored (hex) token hash. */
export function digestOfStoredHash(tokenHash: string): string {
  return Buffer.from(tokenHash, 'hex').toString('latin1')
}
