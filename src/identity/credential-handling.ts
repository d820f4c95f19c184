import type { IncomingHttpHeaders } from 'node:http'
import { tokenFromHeaderValue } from '../auth/extract-credential.js'
import type { Principal } from '../principal.js'
import type { Config } from '../config/schema.js'
import { normalizeHeaderName } from '../upstream/upstream-headers.js'
import { USER_ID_HEADER } from './identity-headers.js'

type CredentialSettings = Pick<Config['auth'], 'token_source' | 'token_header_key' | 'cookie_name'>

/** Which client headers never reach the upstream for one request: a few shared variants. */
export interface CredentialAdjustments {
  readonly drop: ReadonlySet<string>
  readonly dropCookie: string | undefined
  /** A small number naming this combination, the same for equal adjustments (0 ≤ variant < CREDENTIAL_VARIANTS). */
  readonly variant: number
}

// Where the credential that reached the upstream came from: the header, the cookie, neither.
const CARRIER_HEADER = 0
const CARRIER_COOKIE = 1
const CARRIER_NONE = 2
const DROP_USER_ID = 1
/** How many variants there are: three carriers, with and without the client's `X-User-ID`. */
export const CREDENTIAL_VARIANTS = 6

/**
 * Decides which client headers never reach the upstream: the credential (header and JWT cookie)
 * unless a JWT is forwarded by configuration, and the client's `X-User-ID` when ours replaces it
 * or when the route is public (no identity at all). Every combination is built once, so a request
 * allocates nothing here.
 */
export class CredentialHandling {
  readonly #headerKey: string
  readonly #source: CredentialSettings['token_source']
  readonly #forwardJwt: boolean
  readonly #variants: CredentialAdjustments[] = []

  constructor(settings: CredentialSettings, forwardCredentials: boolean) {
    this.#headerKey = settings.token_header_key.toLowerCase()
    this.#source = settings.token_source
    this.#forwardJwt = forwardCredentials
    const credential = normalizeHeaderName(settings.token_header_key)
    for (const carrier of [CARRIER_HEADER, CARRIER_COOKIE, CARRIER_NONE]) {
      for (const userId of [0, DROP_USER_ID]) {
        const drop = new Set<string>()
        if (carrier !== CARRIER_HEADER) drop.add(credential)
        if (userId === DROP_USER_ID) drop.add(USER_ID_HEADER)
        this.#variants.push(
          Object.freeze({
            drop,
            dropCookie: carrier === CARRIER_COOKIE ? undefined : settings.cookie_name,
            variant: carrier * 2 + userId,
          }),
        )
      }
    }
  }

  /** `isPublic`: an excluded route or a preflight, where the client's `X-User-ID` goes too. */
  adjustments(
    principal: Principal,
    headers: IncomingHttpHeaders,
    isPublic = false,
  ): CredentialAdjustments {
    // Only a JWT may be forwarded: service-account tokens, the scheduler token and the security
    // key are the gateway's secrets; an anonymous caller's token was never verified.
    const carrier =
      this.#forwardJwt && principal.kind === 'jwt' ? this.#jwtCarrier(headers) : CARRIER_NONE
    const userId = principal.userId !== null || isPublic ? DROP_USER_ID : 0
    return this.#variants[carrier * 2 + userId] as CredentialAdjustments
  }

  /** Where the verified JWT came from, as credential extraction reads it (header first). */
  #jwtCarrier(headers: IncomingHttpHeaders): number {
    if (this.#source === 'cookie') return CARRIER_COOKIE
    if (this.#source === 'header') return CARRIER_HEADER
    const value = headers[this.#headerKey]
    const text = Array.isArray(value) ? value[0] : value
    return text !== undefined && tokenFromHeaderValue(text) !== '' ? CARRIER_HEADER : CARRIER_COOKIE
  }
}
