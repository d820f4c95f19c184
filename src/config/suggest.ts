import { z } from 'zod'
import { closest } from '../closest.js'
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

/**
 * The known key an unknown one was probably meant to be: the closest key of the same section
 * (a typo), else the same key in another section (a key put in the wrong place).
 */
export function suggestKey(parent: string, key: string): string | undefined {
  const keys = knownKeys()
  const best = closest(key, keys.get(parent) ?? [])
  if (best !== undefined) return parent === '' ? best : `${parent}.${best}`
  for (const [path, names] of keys) {
    if (path !== parent && names.includes(key)) return path === '' ? key : `${path}.${key}`
  }
  return undefined
}
