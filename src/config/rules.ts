import { mappingKeyProblem } from '../policy/route-template.js'
import { credentialSourceProblems, summarizeAuthMode } from './auth-mode.js'
import { checkRemoteKeySource } from './remote-key-source-rules.js'
import type { Config, RawConfig } from './schema.js'
import { weakSecretProblems } from './secret-strength.js'
import type { SecretSources } from './secrets.js'

/**
 * Rules that span several keys (CONF-1 and AgentOS's constructor checks).
 * Returns every violated rule, each prefixed with the key it concerns.
 */
export function checkConfigRules(raw: RawConfig, config: Config, sources: SecretSources): string[] {
  const issues: string[] = []
  const auth = config.auth
  const summary = summarizeAuthMode(auth)

  issues.push(
    ...credentialSourceProblems(summary, {
      serviceAccounts: config.service_accounts.enabled,
      authorizationKey: auth.authorization === true ? 'auth.authorization' : 'auth.scope_mappings',
    }),
  )
  issues.push(...weakSecretProblems(auth))
  if (auth.verify_audience && auth.validate && auth.audience === null && auth.service_id === null) {
    issues.push(
      'auth.verify_audience: needs auth.audience or auth.service_id to compare the token audience with',
    )
  }
  for (const key of Object.keys(auth.scope_mappings ?? {})) {
    const problem = mappingKeyProblem(key)
    if (problem !== undefined) issues.push(`auth.scope_mappings["${key}"]: ${problem}`)
  }
  if (raw.auth.jwks_file !== null) {
    const problem = checkJwksFile(raw.auth.jwks_file, sources)
    if (problem !== undefined) issues.push(`auth.jwks_file: ${problem}`)
  }
  const signing = raw.identity.assertion
  if (signing.enabled && signing.signing_keys_file !== null) {
    try {
      sources.readFile(signing.signing_keys_file)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
      issues.push(
        `identity.assertion.signing_keys_file: cannot read file ${signing.signing_keys_file} (${code})`,
      )
    }
  }
  issues.push(...checkRemoteKeySource(auth, sources))
  if (new URL(config.upstream.url).pathname !== '/') {
    issues.push(
      'upstream.url: must not have a path; the gateway forwards the canonical request path as is',
    )
  }
  const server = config.server
  if (server.request_timeout_ms > 0 && server.headers_timeout_ms > server.request_timeout_ms) {
    issues.push(
      'server.headers_timeout_ms: must not exceed server.request_timeout_ms (the whole request includes its headers)',
    )
  }
  if (config.server.port !== 0 && config.server.port === config.server.admin_port) {
    issues.push('server.admin_port: must differ from server.port')
  }
  return issues
}

function checkJwksFile(path: string, sources: SecretSources): string | undefined {
  let text: string
  try {
    text = sources.readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === undefined || code === 'ENOENT'
      ? `JWKS file not found: ${path}`
      : `cannot read the JWKS file ${path} (${code})`
  }
  try {
    const parsed: unknown = JSON.parse(text)
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      !Array.isArray((parsed as { keys?: unknown }).keys)
    ) {
      return `JWKS file ${path} has no "keys" array`
    }
  } catch (error) {
    return `Invalid JSON in JWKS file ${path}: ${(error as Error).message}`
  }
  return undefined
}
