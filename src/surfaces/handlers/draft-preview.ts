import { isAdmin, type Principal } from '../../principal.js'
import type { RecordedOwner } from '../../service-accounts/resource-owners.js'

/** The run-metadata key AgentOS stamps with the version a run was started at (V3-DRAFT-3). */
export const VERSION_STAMP = 'agno_component_version'

/**
 * AgentOS 3.0's `draft_preview_identity` (V3-DRAFT-1): privileged are the admin and a caller
 * with neither scopes nor a user id (no auth: the security key, an open gateway's anonymous
 * caller); every other caller previews drafts as its user id (the actor), none when it has none.
 */
export function previewIdentity(
  principal: Principal,
  adminScope: string,
): { readonly privileged: boolean; readonly actor: string | null } {
  const unauthenticated = principal.scopes === null && principal.userId === null
  if (unauthenticated || isAdmin(principal, adminScope)) return { privileged: true, actor: null }
  return { privileged: false, actor: principal.userId }
}

// pydantic's lax `int` from a string: surrounding whitespace, a sign, digits with single
// underscores between them, and a fraction of zeros (`2.`, `2.00`).
const LAX_INT = /^([+-]?)(\d+(?:_\d+)*)(?:\.0*)?$/

/**
 * The versions a client named, as canonical decimal strings: every value the upstream might read
 * as an `int`. A value it cannot read is left out (the upstream refuses it with 422); an empty
 * form value means no version, as FastAPI reads forms. All values count, not only the one the
 * upstream keeps, so a request is never decided on a copy the upstream ignores.
 */
export function requestedVersions(values: readonly unknown[]): string[] {
  const versions = new Set<string>()
  for (const value of values) {
    if (typeof value !== 'string') continue
    const match = LAX_INT.exec(value.trim())
    if (match === null) continue
    const digits = (match[2] ?? '').replaceAll('_', '').replace(/^0+(?=\d)/, '')
    versions.add(digits === '0' || match[1] !== '-' ? digits : `-${digits}`)
  }
  return [...versions]
}

/** A config version as the gateway finds it on the upstream. */
export type ConfigStage = 'absent' | 'published' | 'draft'

/**
 * AgentOS's `allow_draft_preview` (V3-DRAFT-2) for a caller that is not privileged: an absent
 * config is the upstream's own 404 to give, a published one runs for anyone, a draft only for
 * the component's recorded owner (an unowned component's drafts are the admin's).
 */
export function previewAllowed(
  stage: ConfigStage,
  actor: string | null,
  owner: RecordedOwner,
): boolean {
  if (stage !== 'draft') return true
  if (actor === null || !owner.known) return false
  return owner.owner === actor
}

/**
 * The run metadata to send instead of the client's when a copy of it could carry a version stamp
 * (V3-DRAFT-3): the copy the upstream reads (the last) without the stamp, or an empty value (which
 * the upstream ignores) when that copy is not JSON the gateway can read but might be to Python
 * (`NaN`, or escapes in its keys). Undefined when no copy needs it.
 */
export function scrubbedMetadata(values: readonly unknown[]): string | undefined {
  const texts = values.filter((value): value is string => typeof value === 'string')
  if (!texts.some(mayCarryStamp)) return undefined
  const last = texts.at(-1) ?? ''
  const read = readMetadata(last)
  if (read.kind === 'unreadable') return mayCarryStamp(last) ? '' : last
  if (read.kind !== 'object' || !Object.hasOwn(read.value, VERSION_STAMP)) return last
  const { [VERSION_STAMP]: _stamp, ...rest } = read.value
  return JSON.stringify(rest)
}

type ReadMetadata =
  | { readonly kind: 'object'; readonly value: Record<string, unknown> }
  /** JSON, but no object: the upstream refuses it (400) and stores nothing. */
  | { readonly kind: 'other' }
  | { readonly kind: 'unreadable' }

function readMetadata(text: string): ReadMetadata {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { kind: 'unreadable' }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { kind: 'object', value: value as Record<string, unknown> }
    : { kind: 'other' }
}

function mayCarryStamp(text: string): boolean {
  const read = readMetadata(text)
  if (read.kind === 'object') return Object.hasOwn(read.value, VERSION_STAMP)
  if (read.kind === 'other') return false
  return text.includes(VERSION_STAMP) || text.includes('\\')
}
