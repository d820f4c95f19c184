/**
 * Freezes a value all through: the loaded configuration, and the decoded JSON a verifier keeps
 * (shared by the requests that present the same token). Iterative, as a `validate: false`
 * payload may nest thousands of levels deep; only objects are queued.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  const pending: object[] = [value]
  Object.freeze(value)
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    for (const child of Object.values(node) as unknown[]) {
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) {
        Object.freeze(child)
        pending.push(child)
      }
    }
  }
  return value
}
