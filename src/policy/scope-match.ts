import type { ParsedScope } from './scope.js'

/**
 * Whether one held scope satisfies one required scope (SCOPE-3): admin covers everything,
 * unknown shapes never match, the family (already unaliased) and the action must be equal strings
 * (`*` is not an action wildcard). A requirement naming an id is covered by a global, a wildcard
 * or the same id; a global requirement only by a global or a wildcard.
 */
export function scopeCovers(held: ParsedScope, required: ParsedScope): boolean {
  if (held.kind === 'admin') return true
  if (held.kind === 'unknown') return false
  if (required.kind !== 'global' && required.kind !== 'resource') return false
  if (held.resource !== required.resource || held.action !== required.action) return false
  if (held.kind === 'global') return true
  if (held.wildcard) return true
  return required.kind === 'resource' && held.id === required.id
}
