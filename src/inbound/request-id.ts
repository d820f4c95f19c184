import { randomUUID } from 'node:crypto'

const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Keeps a well-formed X-Request-Id from a trusted proxy (for end-to-end tracing); otherwise a new one. */
export function chooseRequestId(
  offered: string | string[] | undefined,
  peerTrusted: boolean,
): string {
  if (peerTrusted && typeof offered === 'string' && ACCEPTED_ID.test(offered)) return offered
  return randomUUID()
}
