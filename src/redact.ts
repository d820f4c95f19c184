/**
 * Token-shaped substrings: JWTs, service-account tokens and bearer credentials. Whatever text
 * reaches a log line passes through `redactSecrets` first.
 */
const TOKEN_SHAPES =
  /(eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*)|(svc_pat_[A-Za-z0-9]*)|((?:bearer|basic)\s+[^\s,;"']+)/gi

export const REDACTED = '[REDACTED]'
/** What replaces structure below the depth bound: it is dropped, never passed on unscanned. */
export const TRUNCATED = '[TRUNCATED]'
const MAX_DEPTH = 6

export function redactSecrets(text: string): string {
  return text.replace(TOKEN_SHAPES, REDACTED)
}

const TOKEN_SHAPE = new RegExp(TOKEN_SHAPES.source, 'i')

/** Whether `redactSecrets` would change `text`. */
export function holdsSecret(text: string): boolean {
  return TOKEN_SHAPE.test(text)
}

/** Redacts token-shaped strings everywhere inside a log object (depth-bounded, cycle-safe). */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value)
  if (typeof value !== 'object' || value === null) return value
  if (depth > MAX_DEPTH) return TRUNCATED
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1))
  if (value instanceof Error) return redactError(value, depth)
  const copy: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) copy[key] = redactDeep(child, depth + 1)
  return copy
}

/**
 * A copy of an error with the same prototype (so pino's serializer still names its class), its
 * message, stack and cause redacted, and its own enumerable fields (such as `code`) kept.
 */
function redactError(error: Error, depth: number): Error {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error &
    Record<string, unknown>
  for (const [key, child] of Object.entries(error)) copy[key] = redactDeep(child, depth + 1)
  copy.message = redactSecrets(error.message)
  if (error.stack !== undefined) copy.stack = redactSecrets(error.stack)
  if (error.cause !== undefined) copy.cause = redactDeep(error.cause, depth + 1)
  return copy
}
