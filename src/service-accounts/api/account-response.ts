import { splitScope } from '../../policy/scope.js'
import type { ServiceAccountRecord } from '../store.js'

/** AgentOS's ScopeSchema item: the scope as requested plus its display split (MINT-1). */
export function scopeResponse(raw: string): Record<string, unknown> {
  const parts = splitScope(raw)
  return {
    id: null,
    raw,
    namespace: parts.namespace,
    sub_namespace: parts.sub_namespace,
    permission: parts.permission,
    value: 'allow',
  }
}

/**
 * An account as list and mint show it, keys in AgentOS's order, `last_used_from` (Portcullis's)
 * beside `last_used_at`; never the hash.
 */
export function accountResponse(record: ServiceAccountRecord): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    principal: `sa:${record.name}`,
    user_id: record.userId,
    token_prefix: record.tokenPrefix,
    scopes: record.scopes.map(scopeResponse),
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    last_used_at: record.lastUsedAt,
    last_used_from: record.lastUsedFrom,
    revoked_at: record.revokedAt,
    created_by: record.createdBy,
  }
}
