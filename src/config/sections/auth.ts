import { z } from 'zod'
import { DEFAULT_ADMIN_SCOPE } from '../../policy/scope.js'
import { secretRefSchema } from '../secrets.js'

export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const

const SCOPE_MAPPING_KEY = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/\S*$/

const claimName = z.string().min(1)

/** An absolute http(s) URL without credentials or fragment; the scheme policy is in rules.ts. */
const remoteUrl = z
  .string()
  .min(1)
  .refine((value) => URL.canParse(value), 'must be an absolute URL')
  .refine((value) => {
    if (!URL.canParse(value)) return true
    const url = new URL(value)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === ''
  }, 'must be an https:// URL without a fragment')
  .refine((value) => {
    if (!URL.canParse(value)) return true
    const url = new URL(value)
    return url.username === '' && url.password === ''
  }, 'must not carry credentials')

export const authSchema = z
  .strictObject({
    verification_keys: z
      .array(secretRefSchema)
      .nullable()
      .default(null)
      .describe(
        'JWT verification keys (HS secrets or PEM public keys), tried in order after the remote key set and the JWKS file. JWT_VERIFICATION_KEY is appended even when a list is given.',
      ),
    jwks_file: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'Path to a local JWKS file; keys are selected by the token header `kid`. Reloaded on change and on SIGHUP.',
      ),
    jwks_reload_cooldown_seconds: z
      .number()
      .min(0)
      .default(30)
      .describe(
        'An unknown `kid` re-reads the JWKS file, and refetches the remote key set, at most once per this many seconds each; concurrent requests share one read.',
      ),
    jwks_watch: z
      .boolean()
      .default(true)
      .describe('Watch the JWKS file and reload it when it changes.'),
    jwks_url: remoteUrl
      .nullable()
      .default(null)
      .describe(
        "The identity provider's JWKS URL (https; http only for a loopback host or with jwks_allow_http). Fetched and kept fresh by the gateway; keys are selected by `kid` before the JWKS file's.",
      ),
    oidc_issuer: remoteUrl
      .nullable()
      .default(null)
      .describe(
        'OpenID Connect issuer URL: its `/.well-known/openid-configuration` names the JWKS (`jwks_uri`), and a token verified with those keys must carry exactly this `iss`. Instead of jwks_url.',
      ),
    jwks_refresh_min_seconds: z
      .number()
      .int()
      .min(1)
      .default(60)
      .describe(
        "Shortest time a fetched key set is kept before a background refresh, whatever the provider's Cache-Control says; also the longest retry interval while fetches fail.",
      ),
    jwks_refresh_max_seconds: z
      .number()
      .int()
      .min(1)
      .default(3_600)
      .describe(
        "Longest time a fetched key set is kept before a background refresh (the provider's Cache-Control max-age is capped at this; without one, this is used).",
      ),
    jwks_max_stale_seconds: z
      .number()
      .int()
      .min(0)
      .default(86_400)
      .describe(
        'While the provider is down or answers garbage, the last good key set stays in use for this long past its refresh time; after that it is dropped and JWTs needing it get 503.',
      ),
    jwks_removed_key_grace_seconds: z
      .number()
      .int()
      .min(0)
      .default(600)
      .describe(
        'A key that disappears from the remote key set still verifies tokens for this long (0: refused at once).',
      ),
    jwks_fetch_timeout_ms: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(5_000)
      .describe('Time limit of one request to the JWKS or discovery endpoint, body included.'),
    jwks_max_bytes: z
      .number()
      .int()
      .min(1_024)
      .max(4_194_304)
      .default(262_144)
      .describe('Largest JWKS or discovery document accepted; a larger one is a failed fetch.'),
    jwks_max_keys: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .default(100)
      .describe('Most entries a remote JWKS may hold; a set with more is a failed fetch.'),
    jwks_ca_file: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        "PEM file of CA certificates trusted for the JWKS and discovery endpoints, in addition to Node's bundled roots (a private identity provider).",
      ),
    jwks_allow_http: z
      .boolean()
      .default(false)
      .describe(
        'Allow plain-http jwks_url / oidc_issuer on hosts other than loopback (an in-cluster provider behind a trusted network). Off: https only.',
      ),
    jwks_allow_private_addresses: z
      .boolean()
      .default(false)
      .describe(
        'Allow the JWKS and discovery endpoints to resolve to loopback, private, link-local or other non-public addresses. Off: such targets are refused (SSRF guard).',
      ),
    algorithm: z
      .enum(JWT_ALGORITHMS)
      .default('RS256')
      .describe('The only JWT `alg` accepted. `none` is never accepted.'),
    validate: z
      .boolean()
      .default(true)
      .describe(
        'Verify JWT signature, expiry and audience. false decodes without any check (claims are unverified); only for development.',
      ),
    authorization: z
      .boolean()
      .nullable()
      .default(null)
      .describe(
        'Enforce route scopes (RBAC) for JWTs. Unset: on when scope_mappings is given. Service-account scopes are always enforced.',
      ),
    token_source: z
      .enum(['header', 'cookie', 'both', 'HEADER', 'COOKIE', 'BOTH'])
      .default('header')
      .transform((value) => value.toLowerCase() as 'header' | 'cookie' | 'both')
      .describe(
        'Where the JWT is read: header, cookie, or both (header first, cookie as fallback).',
      ),
    token_header_key: z
      .string()
      .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name')
      .default('Authorization')
      .describe('Header carrying the credential.'),
    cookie_name: z.string().min(1).default('access_token').describe('Cookie carrying the JWT.'),
    scopes_claim: claimName
      .default('scopes')
      .describe('Claim holding the scopes (a list, or one string).'),
    user_id_claim: claimName.default('sub').describe('Claim holding the user id.'),
    session_id_claim: claimName.default('session_id').describe('Claim holding the session id.'),
    audience_claim: claimName.default('aud').describe('Claim holding the audience.'),
    audience: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .nullable()
      .default(null)
      .describe('Expected audience(s); any match passes. Unset: the service_id.'),
    verify_audience: z.boolean().default(false).describe('Check the audience claim.'),
    service_id: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('The protected AgentOS instance id (AgentOS `id`); the default expected audience.'),
    dependencies_claims: z
      .array(claimName)
      .default([])
      .describe('Claims passed to the upstream as `dependencies` (X-Auth-Dependencies).'),
    session_state_claims: z
      .array(claimName)
      .default([])
      .describe('Claims passed to the upstream as `session_state` (X-Auth-Session-State).'),
    scope_mappings: z
      .record(
        z.string().regex(SCOPE_MAPPING_KEY, 'keys are "<METHOD> <path>", e.g. "GET /reports/{id}"'),
        z.array(z.string()),
      )
      .nullable()
      .default(null)
      .describe(
        'Extra route → scope mappings, additive to the AgentOS defaults; an existing key is overridden; [] allows the route without scopes.',
      ),
    excluded_route_paths: z
      .array(z.string().startsWith('/'))
      .nullable()
      .default(null)
      .describe(
        'Routes that bypass authentication entirely. Each is a path whose segments are literals, `*` (exactly one segment) or a final `**` (one or more segments): `/slack/**` covers everything below /slack but not /slack itself; a trailing `/` is ignored. Unset: /, /health, /info, /docs, /redoc, /openapi.json, /docs/oauth2-redirect. A list replaces the defaults.',
      ),
    admin_scope: z
      .string()
      .min(1)
      .default(DEFAULT_ADMIN_SCOPE)
      .describe('Scope granting full admin access.'),
    user_isolation: z
      .boolean()
      .default(false)
      .describe(
        "Pin non-admin JWT callers' user_id to their own. Service accounts are always pinned.",
      ),
    deny_unmapped_routes: z
      .boolean()
      .nullable()
      .default(null)
      .describe(
        'Refuse (403) authenticated requests to routes with no scope mapping, instead of allowing them. Unset: false, except while upstream.agentos_version pins a line the upstream does not report (another line, a version no catalogue covers, an unreadable answer): then true. true or false always wins.',
      ),
    security_key: secretRefSchema
      .nullable()
      .default(null)
      .describe(
        'Static OS security key (OS_SECURITY_KEY), at least 32 characters; used only when no JWT source is configured.',
      ),
    open: z
      .boolean()
      .default(false)
      .describe(
        'Run open, as AgentOS without auth: with no JWT source and no security key, requests without a credential are forwarded (only service-account tokens are checked). Without this, such a configuration is refused, so that a missing secret never opens the gateway.',
      ),
    internal_service_token: secretRefSchema
      .nullable()
      .default(null)
      .describe(
        'Internal scheduler token, at least 32 characters; authenticates as `__scheduler__` with fixed scopes.',
      ),
    max_token_bytes: z
      .number()
      .int()
      .min(256)
      .max(65_536)
      .default(8_192)
      .describe('Longest credential accepted; longer ones are refused before parsing.'),
    jwt_cache_max_entries: z
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe('Verified JWTs remembered (by token hash, never past exp); 0 disables the cache.'),
  })
  .prefault({})
