import type { ValidationIssue } from '../../errors.js'
import { issues, laxBool, laxInt, type Loc } from './pydantic-issues.js'

/** A validated `POST /service-accounts` body (MINT-1); unknown fields are ignored. */
export interface MintRequest {
  readonly name: string
  /** null: the default scopes. */
  readonly scopes: readonly string[] | null
  readonly expiresInDays: number
  readonly neverExpires: boolean
  readonly allowPrivilegedScopes: boolean
}

export const NAME_MAX_LENGTH = 63
export const DEFAULT_EXPIRY_DAYS = 90
const MIN_DAYS = 1
const MAX_DAYS = 3650
// A lowercase letter or digit, then up to 62 of [a-z0-9_-]. No `:`, `@`, `.`, so a name can
// never spell a reserved principal such as `sa:x` or `__scheduler__`.
const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/
const SLUG_RULE =
  "name must be a lowercase slug: a letter or digit, then up to 62 of a-z, 0-9, '_' or '-'"

/** Validates the parsed JSON body, collecting every problem as pydantic would. */
export function parseMintRequest(
  body: unknown,
): { ok: true; value: MintRequest } | { ok: false; issues: ValidationIssue[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, issues: [issues.modelAttributesType(['body'], body)] }
  }
  const fields = body as Record<string, unknown>
  const found: ValidationIssue[] = []
  const name = parseName(fields, found)
  const scopes = parseScopes(fields.scopes, ['body', 'scopes'], found)
  const expiresInDays = parseDays(fields.expires_in_days, found)
  const neverExpires = parseFlag(fields, 'never_expires', found)
  const allowPrivilegedScopes = parseFlag(fields, 'allow_privileged_scopes', found)
  if (found.length > 0) return { ok: false, issues: found }
  return {
    ok: true,
    value: { name: name as string, scopes, expiresInDays, neverExpires, allowPrivilegedScopes },
  }
}

function parseName(fields: Record<string, unknown>, found: ValidationIssue[]): string | undefined {
  const loc: Loc = ['body', 'name']
  if (!('name' in fields)) {
    found.push(issues.missing(loc, fields))
    return undefined
  }
  const name = fields.name
  if (typeof name !== 'string') found.push(issues.stringType(loc, name))
  else if (name.length > NAME_MAX_LENGTH)
    found.push(issues.stringTooLong(loc, name, NAME_MAX_LENGTH))
  else if (!SLUG.test(name)) found.push(issues.valueError(loc, name, SLUG_RULE))
  else return name
  return undefined
}

function parseScopes(input: unknown, loc: Loc, found: ValidationIssue[]): string[] | null {
  if (input === undefined || input === null) return null
  if (!Array.isArray(input)) {
    found.push(issues.listType(loc, input))
    return null
  }
  const scopes: string[] = []
  input.forEach((item: unknown, index) => {
    const itemLoc: Loc = [...loc, index]
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      found.push(issues.modelAttributesType(itemLoc, item))
      return
    }
    const grant = item as Record<string, unknown>
    if (!('scope' in grant)) found.push(issues.missing([...itemLoc, 'scope'], grant))
    else if (typeof grant.scope !== 'string')
      found.push(issues.stringType([...itemLoc, 'scope'], grant.scope))
    else scopes.push(grant.scope)
    // Absent means allow; an explicit null is outside the literal, as pydantic says.
    const effect = 'effect' in grant ? grant.effect : 'allow'
    if (effect !== 'allow' && effect !== 'deny') {
      found.push(issues.literalError([...itemLoc, 'effect'], effect, "'allow' or 'deny'"))
    } else if (effect === 'deny') {
      found.push(
        issues.valueError(
          [...itemLoc, 'effect'],
          effect,
          "only effect 'allow' is supported: token scopes are grants",
        ),
      )
    }
  })
  return scopes
}

function parseDays(input: unknown, found: ValidationIssue[]): number {
  if (input === undefined || input === null) return DEFAULT_EXPIRY_DAYS
  const loc: Loc = ['body', 'expires_in_days']
  const parsed = laxInt(input, loc)
  if (!parsed.ok) found.push(parsed.issue)
  else if (parsed.value < MIN_DAYS) found.push(issues.greaterThanEqual(loc, input, MIN_DAYS))
  else if (parsed.value > MAX_DAYS) found.push(issues.lessThanEqual(loc, input, MAX_DAYS))
  else return parsed.value
  return DEFAULT_EXPIRY_DAYS
}

function parseFlag(
  fields: Record<string, unknown>,
  key: string,
  found: ValidationIssue[],
): boolean {
  if (!(key in fields)) return false
  const parsed = laxBool(fields[key], ['body', key])
  if (parsed.ok) return parsed.value
  found.push(parsed.issue)
  return false
}
