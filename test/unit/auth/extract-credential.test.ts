import t from 'tap'
import {
  extractCredential,
  missingCredentialError,
  missingJwtText,
  SECURITY_KEY_MISSING_TEXT,
  tokenFromHeaderValue,
  type CredentialSettings,
} from '../../../src/auth/extract-credential.js'
import { authConfig, gatewayErrorOf, inbound } from './helpers.js'

const header: CredentialSettings = authConfig()
const cookie: CredentialSettings = authConfig({ token_source: 'cookie', cookie_name: 'jwt_token' })
const both: CredentialSettings = authConfig({ token_source: 'both', cookie_name: 'jwt_cookie' })
const customHeader: CredentialSettings = authConfig({ token_header_key: 'X-Auth-Token' })

void t.test('header values (AUTH-2, JWT-9)', async (t) => {
  const table: [string, string | undefined][] = [
    ['Bearer abc', 'abc'], // 11: then fails as a JWT with "Not enough segments"
    ['Bearer', 'Bearer'], // 12: node trims "Bearer " to "Bearer": the whole value is the token
    ['eyJ.a.b', 'eyJ.a.b'], // 13: no scheme
    ['bearer eyJ.a.b', 'eyJ.a.b'], // 14: lowercase scheme
    ['BEARER eyJ.a.b', 'eyJ.a.b'],
    ['Bearer<jwt>', 'Bearer<jwt>'], // 15: no space → the whole value, which then fails
    ['Bearer   spaced  ', 'spaced'],
    ['bEaReR mixed', 'mixed'],
    ['Basic x', 'Basic x'], // another scheme is part of the token
    ['  raw-token  ', 'raw-token'],
    ['', undefined], // empty → missing
    ['   ', undefined],
  ]
  for (const [value, expected] of table) {
    const credential = extractCredential(inbound(['Authorization', value]), header)
    t.equal(credential?.token, expected, JSON.stringify(value))
    if (expected !== undefined) t.equal(credential?.source, 'header')
  }
  t.equal(
    tokenFromHeaderValue('Bearer\tx'),
    'Bearer\tx',
    'only "bearer " with one space is a scheme',
  )
})

void t.test('10: no credential → missing, with the 6.3 texts', async (t) => {
  t.equal(extractCredential(inbound([]), header), undefined)
  t.equal(missingJwtText(header), 'Authorization header missing')
  t.equal(missingJwtText(cookie), "JWT cookie 'jwt_token' missing")
  t.equal(
    missingJwtText(both),
    "JWT token missing from both Authorization header and 'jwt_cookie' cookie",
  )
  t.equal(
    missingJwtText(customHeader),
    'Authorization header missing',
    'AgentOS says so even for a custom header',
  )
  t.equal(SECURITY_KEY_MISSING_TEXT, 'Authorization header required')
  const error = missingCredentialError(header, 'security_key')
  t.equal(error.status, 401)
  t.equal(error.code, 'CREDENTIALS_MISSING')
  t.equal(error.detail, 'Authorization header required')
  t.equal(missingCredentialError(cookie, 'jwt').detail, "JWT cookie 'jwt_token' missing")
})

void t.test('header names are case-insensitive', async (t) => {
  t.equal(extractCredential(inbound(['authorization', 'Bearer a']), header)?.token, 'a')
  t.equal(extractCredential(inbound(['AUTHORIZATION', 'Bearer a']), header)?.token, 'a')
})

void t.test('37: cookie source', async (t) => {
  t.equal(extractCredential(inbound([]), cookie), undefined)
  t.equal(
    extractCredential(inbound(['Authorization', 'Bearer h']), cookie),
    undefined,
    'header not read',
  )
  const credential = extractCredential(inbound(['Cookie', 'a=1; jwt_token= tok ; b=2']), cookie)
  t.same(credential, { token: 'tok', source: 'cookie' })
  t.equal(
    extractCredential(inbound(['Cookie', 'jwt_token=']), cookie),
    undefined,
    'empty cookie → missing',
  )
  t.equal(
    extractCredential(inbound(['Cookie', 'JWT_TOKEN=x']), cookie),
    undefined,
    'cookie names are case-sensitive',
  )
  t.equal(
    extractCredential(inbound(['Cookie', 'jwt_token="quoted"']), cookie)?.token,
    'quoted',
    'unquoted as Starlette does',
  )
  t.equal(
    extractCredential(inbound(['Cookie', 'x=1', 'Cookie', 'jwt_token=second']), cookie)?.token,
    'second',
    'several Cookie headers are all read',
  )
})

void t.test('38: both: header first, cookie as fallback', async (t) => {
  const withBoth = inbound([
    'Authorization',
    'Bearer from-header',
    'Cookie',
    'jwt_cookie=from-cookie',
  ])
  t.same(extractCredential(withBoth, both), { token: 'from-header', source: 'header' })
  t.same(extractCredential(inbound(['Cookie', 'jwt_cookie=from-cookie']), both), {
    token: 'from-cookie',
    source: 'cookie',
  })
  t.same(
    extractCredential(inbound(['Authorization', '', 'Cookie', 'jwt_cookie=c']), both),
    { token: 'c', source: 'cookie' },
    'an empty header falls back',
  )
  t.equal(extractCredential(inbound([]), both), undefined)
})

void t.test('39: a custom header key ignores Authorization', async (t) => {
  t.equal(extractCredential(inbound(['X-Auth-Token', 'Bearer t']), customHeader)?.token, 't')
  t.equal(extractCredential(inbound(['x-auth-token', 'raw']), customHeader)?.token, 'raw')
  t.equal(extractCredential(inbound(['Authorization', 'Bearer t']), customHeader), undefined)
})

void t.test('duplicate credentials are refused (attack class 14)', async (t) => {
  const twoHeaders = inbound(['Authorization', 'Bearer a', 'authorization', 'Bearer b'])
  let error = await gatewayErrorOf(() => extractCredential(twoHeaders, header))
  t.equal(error.status, 400)
  t.equal(error.detail, 'Multiple credentials in one request')
  t.equal(error.reason, 'credential.duplicate_header')

  const emptySecond = inbound(['Authorization', 'Bearer a', 'Authorization', ''])
  error = await gatewayErrorOf(() => extractCredential(emptySecond, header))
  t.equal(error.reason, 'credential.duplicate_header', 'an empty copy counts too')

  const twoCustom = inbound(['X-Auth-Token', 'a', 'x-auth-token', 'b'])
  error = await gatewayErrorOf(() => extractCredential(twoCustom, customHeader))
  t.equal(error.reason, 'credential.duplicate_header', 'node would join these with ", "')

  error = await gatewayErrorOf(() =>
    extractCredential(inbound(['Cookie', 'jwt_token=a; jwt_token=b']), cookie),
  )
  t.equal(error.reason, 'credential.duplicate_cookie')
  error = await gatewayErrorOf(() =>
    extractCredential(inbound(['Cookie', 'jwt_token=a', 'Cookie', 'jwt_token=b']), cookie),
  )
  t.equal(error.reason, 'credential.duplicate_cookie', 'across Cookie headers')
  error = await gatewayErrorOf(() =>
    extractCredential(
      inbound(['Authorization', 'Bearer h', 'Cookie', 'jwt_cookie=a; jwt_cookie=b']),
      both,
    ),
  )
  t.equal(
    error.reason,
    'credential.duplicate_cookie',
    'both: the cookie is checked even when the header wins',
  )

  t.equal(
    extractCredential(inbound(['Authorization', 'Bearer a', 'Authorization', 'Bearer b']), cookie),
    undefined,
    'a source that is not read is not checked',
  )
  t.equal(
    extractCredential(
      inbound(['Cookie', 'access_token=a; access_token=b', 'Authorization', 'Bearer h']),
      header,
    )?.token,
    'h',
    'duplicate cookies do not matter when cookies are not read',
  )
})

void t.test('query-string tokens are never read (attack class 29)', async (t) => {
  const request = { ...inbound([]), query: 'token=abc&access_token=abc&jwt=abc' }
  t.equal(extractCredential(request, both), undefined)
})
