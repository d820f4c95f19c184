import { hash } from 'node:crypto'

/** A credential as extracted from a request, before any verifier looked at it. */
export interface Credential {
  /** The token text, scheme removed; never logged. */
  readonly token: string
  readonly source: 'header' | 'cookie' | 'subprotocol' | 'message'
}

export const SERVICE_TOKEN_PREFIX = 'svc_pat_'

/** Service-account tokens are recognized by their prefix alone, before any other check (PAT-1). */
export function isServiceToken(token: string): boolean {
  return token.startsWith(SERVICE_TOKEN_PREFIX)
}

/**
 * The SHA-256 of a credential as the gateway keeps it in memory (cache keys, a principal's
 * `credentialHash`, revocations): its 32 bytes as a 32-character latin1 string, 48 bytes of heap
 * where the hex text takes 80. Never logged or shown; the store keeps the hex form.
 */
export function credentialDigest(token: string): string {
  // The one-shot hash: no Hash object per presented token. 'binary' is Node's name for latin1.
  return hash('sha256', token, 'binary')
}
