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
