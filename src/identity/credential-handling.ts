import type { IncomingHttpHeaders } from 'node:http'
import { tokenFromHeaderValue } from '../auth/extract-credential.js'
import type { Principal } from '../auth/principal.js'
import type { Config } from '../config/schema.js'
import { normalizeHeaderName } from '../http/upstream-headers.js'
import { USER_ID_HEADER } from './identity-headers.js'

type CredentialSettings = Pick<Config['auth'], 'token_source' | 'token_header_key' | 'cookie_name'>

export interface CredentialAdjustments {
  readonly drop: ReadonlySet<string>
  readonly dropCookie: string | undefined
}

const DROP_CREDENTIAL = 1
const DROP_USER_ID = 2
// A rewritten response must arrive uncompressed to be read.
const DROP_ACCEPT_ENCODING = 4

/**
 * Decides which client headers never reach the upstream: the credential (header and JWT cookie)
 * unless a JWT is forwarded by configuration, and the client's `X-User-ID` when ours replaces it
 * or when the route is public (no identity at all).
 * Every combination is built once, so a request allocates nothing here.
 */
export class CredentialHandling {
  readonly #headerKey: string
  readonly #cookieName: string
  readonly #source: CredentialSettings['token_source']
  readonly #forwardJwt: boolean
  readonly #dropSets: ReadonlySet<string>[] = []

  constructor(settings: CredentialSettings, forwardCredentials: boolean) {
    this.#headerKey = settings.token_header_key.toLowerCase()
    this.#cookieName = settings.cookie_name
    this.#source = settings.token_source
    this.#forwardJwt = forwardCredentials
    const credential = normalizeHeaderName(settings.token_header_key)
    for (let flags = 0; flags < 8; flags++) {
      const names = new Set<string>()
      if ((flags & DROP_CREDENTIAL) !== 0) names.add(credential)
      if ((flags & DROP_USER_ID) !== 0) names.add(USER_ID_HEADER)
      if ((flags & DROP_ACCEPT_ENCODING) !== 0) names.add('accept-encoding')
      this.#dropSets.push(names)
    }
  }

  /** `isPublic`: an excluded route or a preflight, where the client's `X-User-ID` goes too. */
  adjustments(
    principal: Principal,
    headers: IncomingHttpHeaders,
    rewritesResponse: boolean,
    isPublic = false,
  ): CredentialAdjustments {
    // Only a JWT may be forwarded: service-account tokens, the scheduler token and the security
    // key are the gateway's secrets; an anonymous caller's token was never verified.
    const carrier =
      this.#forwardJwt && principal.kind === 'jwt' ? this.#jwtCarrier(headers) : undefined
    let flags = carrier === 'header' ? 0 : DROP_CREDENTIAL
    if (principal.userId !== null || isPublic) flags |= DROP_USER_ID
    if (rewritesResponse) flags |= DROP_ACCEPT_ENCODING
    return {
      drop: this.#dropSets[flags] as ReadonlySet<string>,
      dropCookie: carrier === 'cookie' ? undefined : this.#cookieName,
    }
  }

  /** Where the verified JWT came from, as credential extraction reads it (header first). */
  #jwtCarrier(headers: IncomingHttpHeaders): 'header' | 'cookie' {
    if (this.#source === 'cookie') return 'cookie'
    if (this.#source === 'header') return 'header'
    const value = headers[this.#headerKey]
    const text = Array.isArray(value) ? value[0] : value
    return text !== undefined && tokenFromHeaderValue(text) !== '' ? 'header' : 'cookie'
  }
}
