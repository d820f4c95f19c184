import { X509Certificate } from 'node:crypto'
import { isLoopbackHost } from './loopback-host.js'
import type { Config } from './schema.js'
import type { SecretSources } from './secrets.js'

type RemoteSettings = Pick<
  Config['auth'],
  | 'jwks_url'
  | 'oidc_issuer'
  | 'jwks_allow_http'
  | 'jwks_refresh_min_seconds'
  | 'jwks_refresh_max_seconds'
  | 'jwks_ca_file'
>

/** The rules of `auth.jwks_url` / `auth.oidc_issuer` and their settings that span several keys. */
export function checkRemoteKeySource(auth: RemoteSettings, sources: SecretSources): string[] {
  const issues: string[] = []
  if (auth.jwks_url !== null && auth.oidc_issuer !== null) {
    issues.push(
      "auth.oidc_issuer: give auth.jwks_url or auth.oidc_issuer, not both (the issuer's discovery document names its JWKS)",
    )
  }
  for (const key of ['jwks_url', 'oidc_issuer'] as const) {
    const value = auth[key]
    if (value === null) continue
    const url = new URL(value)
    if (url.protocol === 'http:' && !auth.jwks_allow_http && !isLoopbackHost(url.hostname)) {
      issues.push(
        `auth.${key}: plain http is allowed only for a loopback host; use https (or set auth.jwks_allow_http: true for a provider on a trusted network)`,
      )
    }
  }
  if (auth.oidc_issuer !== null) {
    const issuer = new URL(auth.oidc_issuer)
    if (issuer.search !== '') {
      issues.push('auth.oidc_issuer: an issuer URL has no query string (OpenID Connect Discovery)')
    }
  }
  if (auth.jwks_refresh_min_seconds > auth.jwks_refresh_max_seconds) {
    issues.push('auth.jwks_refresh_min_seconds: must not exceed auth.jwks_refresh_max_seconds')
  }
  if (auth.jwks_ca_file !== null) {
    const problem = caFileProblem(auth.jwks_ca_file, sources)
    if (problem !== undefined) issues.push(`auth.jwks_ca_file: ${problem}`)
  }
  return issues
}

function caFileProblem(path: string, sources: SecretSources): string | undefined {
  let text: string
  try {
    text = sources.readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    return `cannot read ${path} (${code})`
  }
  try {
    new X509Certificate(text)
  } catch {
    return `${path} holds no PEM certificate`
  }
  return undefined
}
