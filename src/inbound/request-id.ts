import { randomFillSync } from 'node:crypto'
import { holdsSecret } from '../redact.js'

const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * Keeps a well-formed X-Request-Id from a trusted proxy (for end-to-end tracing); otherwise a new
 * one. A token-shaped id is not kept: the id is sent upstream, answered to the client and written
 * in every log line and audit event of the request, so every id chosen here can be logged as it
 * is (no line needs to scan it again).
 */
export function chooseRequestId(
  offered: string | string[] | undefined,
  peerTrusted: boolean,
): string {
  if (
    peerTrusted &&
    typeof offered === 'string' &&
    ACCEPTED_ID.test(offered) &&
    !holdsSecret(offered)
  )
    return offered
  return newRequestId()
}

const UUID_BYTES = 16
/** Random bytes drawn from the system's generator a batch at a time, as `randomUUID` does. */
const pool = Buffer.alloc(UUID_BYTES * 256)
let taken = pool.length
const HEX = Buffer.from('0123456789abcdef', 'latin1')
const text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1')
/** Where each byte's two hex digits go in `text`. */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` makes one: the same generator, format,
 * version and variant. Written into one buffer and read out as one string: `randomUUID` joins
 * twenty hex pieces with `+`, a rope of a dozen heap objects (about 0.5 KB a request).
 */
export function newRequestId(): string {
  if (taken === pool.length) {
    randomFillSync(pool)
    taken = 0
  }
  pool[taken + 6] = ((pool[taken + 6] as number) & 0x0f) | 0x40
  pool[taken + 8] = ((pool[taken + 8] as number) & 0x3f) | 0x80
  for (let index = 0; index < UUID_BYTES; index++) {
    const byte = pool[taken + index] as number
    const at = DIGIT_AT[index] as number
    text[at] = HEX[byte >> 4] as number
    text[at + 1] = HEX[byte & 0x0f] as number
  }
  taken += UUID_BYTES
  return text.toString('latin1')
}
