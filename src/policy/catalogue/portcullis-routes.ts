import type { DefaultScopeMapping } from './scope-patterns.js'

/**
 * Routes only Portcullis serves (no AgentOS line has them), in the form of AgentOS's default table
 * so that they compile, match and can be overridden by `scope_mappings` like its entries. Every
 * line's scope table gets them after the line's own entries; which accounts a caller may read
 * there follows the line's `/service-accounts` ownership rule (SA-6).
 */
export const PORTCULLIS_SCOPE_MAPPINGS: readonly DefaultScopeMapping[] = [
  ['GET', '/service-accounts/events', ['service_accounts:read']],
  ['GET', '/service-accounts/*/events', ['service_accounts:read']],
]
