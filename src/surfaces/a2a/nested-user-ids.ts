import { GatewayError } from '../../errors.js'
import { isJsonObject, type JsonObject } from '../common/json.js'

/** `user_id`, `userId`, `USER-ID`, …: a key any reader could take for a user's id. */
function namesUser(key: string): boolean {
  return key.length >= 6 && key.length <= 8 && key.replace(/[-_]/g, '').toLowerCase() === 'userid'
}

/**
 * AgentOS reads a user only from `metadata.userId` (pinned before this runs), but a tool, a hook
 * or another version may read a user id nested anywhere in the metadata. Stricter than AgentOS: a
 * self-scoped caller's metadata may name no user but its own, at any depth.
 */
export function refuseForeignUserIds(metadata: JsonObject, own: ReadonlySet<string>): void {
  const pending: unknown[] = [metadata]
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (Array.isArray(value)) {
      pending.push(...(value as unknown[]))
      continue
    }
    if (!isJsonObject(value)) continue
    for (const [key, member] of Object.entries(value)) {
      if (namesUser(key) && !(typeof member === 'string' && own.has(member))) {
        throw new GatewayError('BAD_REQUEST', `Client-supplied ${key} may not name another user`, {
          reason: 'surfaces.foreign_user_id',
        })
      }
      if (typeof member === 'object' && member !== null) pending.push(member)
    }
  }
}
