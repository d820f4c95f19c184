/**
 * Properties of credential extraction against a reference parser written here from AgentOS's
 * documented behaviour (AUTH-2): the header named by `token_header_key` (one `Bearer `
 * scheme removed, any other value taken whole), the cookie (Starlette's parsing), header first
 * for `both`, and any credential header or cookie given twice refused. No input may yield a
 * different token, and nothing but a GatewayError may be thrown.
 */
import fc from 'fast-check'
import type { Credential } from '../../../src/auth/credential.js'
import { extractCredential, type CredentialSettings } from '../../../src/auth/extract-credential.js'
import { GatewayError } from '../../../src/errors.js'

type Outcome = { token: string; source: 'header' | 'cookie' } | 'none' | 'duplicate'

/** http.cookies._unquote: `"…"` loses its quotes, `\ooo` is an octal byte, `\c` is `c`. */
function unquote(value: string): string {
  if (value.length < 2 || value[0] !== '"' || value[value.length - 1] !== '"') return value
  let out = ''
  const inner = value.slice(1, -1)
  for (let index = 0; index < inner.length; index++) {
    const char = inner[index] as string
    if (char !== '\\' || index === inner.length - 1) {
      out += char
      continue
    }
    const octal = /^[0-3][0-7]{2}/.exec(inner.slice(index + 1))
    if (octal !== null) {
      out += String.fromCharCode(Number.parseInt(octal[0], 8))
      index += 3
    } else {
      out += inner[index + 1]
      index += 1
    }
  }
  return out
}

export function referenceExtract(raw: readonly string[], settings: CredentialSettings): Outcome {
  const headers: string[] = []
  const cookies: string[] = []
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase()
    const value = raw[index + 1] as string
    if (name === settings.token_header_key.toLowerCase()) headers.push(value)
    if (name !== 'cookie') continue
    for (const pair of value.split(';')) {
      const equals = pair.indexOf('=')
      if (equals !== -1 && pair.slice(0, equals).trim() === settings.cookie_name) {
        cookies.push(unquote(pair.slice(equals + 1).trim()))
      }
    }
  }
  const readsHeader = settings.token_source !== 'cookie'
  const readsCookie = settings.token_source !== 'header'
  if ((readsHeader && headers.length > 1) || (readsCookie && cookies.length > 1)) return 'duplicate'
  if (readsHeader && headers[0] !== undefined) {
    const value = headers[0]
    const token = /^bearer /i.test(value) ? value.slice(7).trim() : value.trim()
    if (token !== '') return { token, source: 'header' }
  }
  if (readsCookie && cookies[0] !== undefined && cookies[0].trim() !== '') {
    return { token: cookies[0].trim(), source: 'cookie' }
  }
  return 'none'
}

function actual(raw: readonly string[], settings: CredentialSettings): Outcome {
  let found: Credential | undefined
  try {
    found = extractCredential({ rawHeaders: raw }, settings)
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'BAD_REQUEST') return 'duplicate'
    throw error
  }
  return found === undefined ? 'none' : { token: found.token, source: found.source as 'header' }
}

const token = fc.oneof(
  fc.constantFrom(
    'eyJhbGciOiJIUzI1NiJ9.e30.sig',
    'svc_pat_abc',
    'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
    'a b',
    '',
    ' ',
    '"q"',
    '"a\\"b"',
    '"\\101"',
    'x;y',
    'x=y',
    'Bearer',
    'bearer x',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
)
const cookieName = fc.constantFrom(
  'access_token',
  'Access_Token',
  'session',
  ' access_token',
  'access_token ',
  'x',
)
const cookieValue = fc
  .tuple(fc.array(fc.tuple(cookieName, token), { maxLength: 3 }), fc.constantFrom('; ', ';', ' ; '))
  .map(([pairs, separator]) => pairs.map(([name, value]) => `${name}=${value}`).join(separator))
const schemeValue = fc.oneof(
  token,
  token.map((value) => `Bearer ${value}`),
  token.map((value) => `bearer  ${value} `),
  token.map((value) => `BEARER ${value}`),
  token.map((value) => `Basic ${value}`),
)
const field = fc.oneof(
  fc.tuple(
    fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION', 'X-Api-Key', 'x-api-key'),
    schemeValue,
  ),
  fc.tuple(fc.constantFrom('Cookie', 'cookie', 'COOKIE'), cookieValue),
  fc.tuple(
    fc.constantFrom('X-Other', 'Authorization_', 'Proxy-Authorization', 'Set-Cookie'),
    fc.oneof(schemeValue, cookieValue),
  ),
)
export const rawHeaders = fc.array(field, { maxLength: 5 }).map((pairs) => pairs.flat())
export const settings: fc.Arbitrary<CredentialSettings> = fc.record({
  token_source: fc.constantFrom('header', 'cookie', 'both'),
  token_header_key: fc.constantFrom('Authorization', 'X-Api-Key'),
  cookie_name: fc.constantFrom('access_token', 'session'),
})

export const credentialProperties = {
  'extraction yields the token the reference parser reads, or refuses the same duplicates':
    fc.property(rawHeaders, settings, (raw, chosen) => {
      const got = actual(raw, chosen)
      const want = referenceExtract(raw, chosen)
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        throw new Error(`got ${JSON.stringify(got)}, the reference reads ${JSON.stringify(want)}`)
      }
    }),
}
