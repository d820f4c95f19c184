import { z } from 'zod'

const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name')

export const ASSERTION_ALGORITHMS = ['ES256', 'EdDSA', 'RS256'] as const

export const DEFAULT_STRIPPED_IDENTITY_HEADERS = [
  'X-Remote-User',
  'X-Forwarded-User',
  'X-Forwarded-Email',
  'X-Forwarded-Groups',
  'X-Forwarded-Preferred-Username',
  'X-Auth-Request-User',
  'X-Auth-Request-Email',
]

const assertionSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'Add a short-lived signed JWT stating the verified identity to every authenticated request.',
      ),
    header: headerName
      .default('X-Auth-Assertion')
      .describe('Header carrying the assertion; client copies are always removed.'),
    algorithm: z
      .enum(ASSERTION_ALGORITHMS)
      .default('ES256')
      .describe('Signing algorithm of the assertion.'),
    issuer: z.string().min(1).default('portcullis').describe('The assertion `iss` claim.'),
    audience: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('The assertion `aud` claim. Unset: the upstream URL.'),
    lifetime_seconds: z
      .number()
      .int()
      .min(5)
      .max(3_600)
      .default(60)
      .describe(
        'Validity of an assertion; a cached one is reused while more than half of it remains.',
      ),
    rotation_hours: z
      .number()
      .positive()
      .default(24)
      .describe(
        'Generated keys: a new signing key every this many hours. The next key is published one period before it signs; the previous one stays published until its assertions expire.',
      ),
    signing_keys_file: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'A private JWK set shared by replicas; the first key signs, all are published. Unset: keys are generated in memory and rotated.',
      ),
  })
  .prefault({})

export const identitySchema = z
  .strictObject({
    forward_credentials: z
      .boolean()
      .default(false)
      .describe(
        'Forward the JWT (header or cookie) to the upstream. Service-account tokens and the security key are never forwarded.',
      ),
    strip_headers: z
      .array(headerName)
      .default(DEFAULT_STRIPPED_IDENTITY_HEADERS)
      .describe(
        'Identity headers other proxies use; removed from every request (any case, `_` for `-`). X-Auth-* and X-User-ID are handled regardless.',
      ),
    assertion: assertionSchema.describe('Signed identity assertion for backends that want proof.'),
  })
  .prefault({})
