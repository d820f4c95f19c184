import { z } from 'zod'
import { configSchema } from './schema.js'

interface ObjectShape {
  readonly properties?: Record<string, ObjectShape>
}

let known: Map<string, readonly string[]> | undefined

/** Every object path of the schema ('' for the root) with the keys it accepts. */
function knownKeys(): Map<string, readonly string[]> {
  if (known !== undefined) return known
  const root = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as ObjectShape
  const map = new Map<string, readonly string[]>()
  const visit = (path: string, shape: ObjectShape): void => {
    if (shape.properties === undefined) return
    map.set(path, Object.keys(shape.properties))
    for (const [key, child] of Object.entries(shape.properties)) {
      visit(path === '' ? key : `${path}.${key}`, child)
    }
  }
  visit('', root)
  known = map
  return map
}

/** Levenshtein distance, small strings only. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      )
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/**
 * The known key an unknown one was probably meant to be: the closest key of the same section
 * (a typo), else the same key in another section (a key put in the wrong place).
 */
export function suggestKey(parent: string, key: string): string | undefined {
  const keys = knownKeys()
  const siblings = keys.get(parent) ?? []
  const limit = Math.max(2, Math.floor(key.length / 3))
  let best: { key: string; distance: number } | undefined
  for (const candidate of siblings) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase())
    if (d <= limit && (best === undefined || d < best.distance))
      best = { key: candidate, distance: d }
  }
  if (best !== undefined) return parent === '' ? best.key : `${parent}.${best.key}`
  for (const [path, names] of keys) {
    if (path !== parent && names.includes(key)) return path === '' ? key : `${path}.${key}`
  }
  return undefined
}
