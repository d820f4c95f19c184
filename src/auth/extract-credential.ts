import type { Config } from '../config/schema.js'
import { GatewayError } from '../errors.js'
import type { Credential } from './credential.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import { sameFieldName } from '../inbound/field-name.js'

/** The `auth:` keys that decide where a credential is read (AUTH-2). */
export type CredentialSettings = Pick<
  Config['auth'],
  'token_source' | 'token_header_key' | 'cookie_name'
>

const BEARER_PREFIX = 'bearer '

/**
 * Reads the credential of an HTTP request or WebSocket upgrade as AgentOS does: the configured
 * header (a `Bearer ` scheme removed, any other value taken whole), the configured cookie, or the
 * header with the cookie as fallback. Query-string tokens are never read.
 *
 * Node keeps only the first `Authorization` header and joins other repeated headers, so the raw
 * header list is scanned instead: a credential header or cookie given twice is refused (400), as
 * the two copies could be read differently by another hop.
 */
export function extractCredential(
  request: Pick<InboundRequest, 'rawHeaders'>,
  settings: CredentialSettings,
): Credential | undefined {
  const useHeader = settings.token_source !== 'cookie'
  const useCookie = settings.token_source !== 'header'
  const headerValue = useHeader
    ? singleHeaderValue(request.rawHeaders, settings.token_header_key)
    : undefined
  const cookieValue = useCookie
    ? singleCookieValue(request.rawHeaders, settings.cookie_name)
    : undefined

  const headerToken = headerValue === undefined ? '' : tokenFromHeaderValue(headerValue)
  if (headerToken !== '') return { token: headerToken, source: 'header' }
  const cookieToken = cookieValue?.trim() ?? ''
  if (cookieToken !== '') return { token: cookieToken, source: 'cookie' }
  return undefined
}

/** `Bearer x` → `x`; anything else (`Basic x`, a bare token, `Bearer` alone) is the token as is. */
export function tokenFromHeaderValue(value: string): string {
  if (value.slice(0, BEARER_PREFIX.length).toLowerCase() === BEARER_PREFIX) {
    return value.slice(BEARER_PREFIX.length).trim()
  }
  return value.trim()
}

/** The 401 detail for a request without a credential in JWT mode (JWT-9). */
export function missingJwtText(settings: CredentialSettings): string {
  switch (settings.token_source) {
    case 'header':
      return 'Authorization header missing'
    case 'cookie':
      return `JWT cookie '${settings.cookie_name}' missing`
    case 'both':
      return `JWT token missing from both Authorization header and '${settings.cookie_name}' cookie`
  }
}

/** The 401 detail for a request without a credential in security-key mode (AUTH-6). */
export const SECURITY_KEY_MISSING_TEXT = 'Authorization header required'

/** The 401 for a missing credential, in the wording of the mode the gateway runs in. */
export function missingCredentialError(
  settings: CredentialSettings,
  mode: 'jwt' | 'security_key',
): GatewayError<'CREDENTIALS_MISSING'> {
  const detail = mode === 'jwt' ? missingJwtText(settings) : SECURITY_KEY_MISSING_TEXT
  return new GatewayError('CREDENTIALS_MISSING', detail, { reason: 'credential.missing' })
}

function duplicateError(reason: 'credential.duplicate_header' | 'credential.duplicate_cookie') {
  return new GatewayError('BAD_REQUEST', 'Multiple credentials in one request', { reason })
}

function singleHeaderValue(rawHeaders: readonly string[], name: string): string | undefined {
  let found: string | undefined
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (!sameFieldName(rawHeaders[index] as string, name)) continue
    if (found !== undefined) throw duplicateError('credential.duplicate_header')
    found = rawHeaders[index + 1] ?? ''
  }
  return found
}

/** Cookie parsing as Starlette does it (split on `;`, trim, unquote); cookie names are case-sensitive. */
function singleCookieValue(rawHeaders: readonly string[], name: string): string | undefined {
  let found: string | undefined
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (!sameFieldName(rawHeaders[index] as string, 'cookie')) continue
    for (const chunk of (rawHeaders[index + 1] ?? '').split(';')) {
      const equals = chunk.indexOf('=')
      const key = equals < 0 ? '' : chunk.slice(0, equals).trim()
      if (key !== name) continue
      if (found !== undefined) throw duplicateError('credential.duplicate_cookie')
      found = unquoteCookieValue(chunk.slice(equals + 1).trim())
    }
  }
  return found
}

function unquoteCookieValue(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value
  return value
    .slice(1, -1)
    .replace(/\\(?:([0-3][0-7][0-7])|(.))/g, (_match, octal: string | undefined, char: string) =>
      octal !== undefined ? String.fromCharCode(parseInt(octal, 8)) : char,
    )
}
