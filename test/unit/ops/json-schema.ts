/**
 * A JSON Schema (draft-07) validator for exactly the keywords helm/portcullis/values.schema.json
 * uses. A keyword it does not know is an error, never ignored: a schema that grows a keyword
 * makes the tests fail until the keyword is implemented here.
 */

type Schema = Record<string, unknown>

export interface SchemaProblem {
  readonly path: string
  readonly message: string
}

/** Keywords that only annotate. */
const ANNOTATIONS = new Set(['$schema', 'title', 'description', 'default', 'examples'])
const KEYWORDS = new Set([
  'type',
  'properties',
  'additionalProperties',
  'required',
  'propertyNames',
  'items',
  'minItems',
  'enum',
  'const',
  'anyOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'minLength',
  'pattern',
  'format',
])

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function hasType(value: unknown, type: string): boolean {
  const actual = typeOf(value)
  return actual === type || (type === 'number' && actual === 'integer')
}

function isUri(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1
  } catch {
    return false
  }
}

function deepEqual(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right)
}

/** Every problem of `value` against `schema`; an empty list when it is valid. */
export function validate(schema: Schema, value: unknown, path = '$'): SchemaProblem[] {
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !KEYWORDS.has(keyword))
      throw new Error(`${path}: schema keyword "${keyword}" is not implemented by this validator`)
  }
  const problems: SchemaProblem[] = []
  const fail = (message: string): void => {
    problems.push({ path, message })
  }

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]
    if (!types.some((type) => hasType(value, type))) {
      fail(`must be ${types.join(' or ')}, not ${typeOf(value)}`)
      return problems
    }
  }
  if (schema.enum !== undefined && !(schema.enum as unknown[]).some((v) => deepEqual(v, value)))
    fail(`must be one of ${JSON.stringify(schema.enum)}`)
  if (schema.const !== undefined && !deepEqual(schema.const, value))
    fail(`must be ${JSON.stringify(schema.const)}`)
  if (schema.anyOf !== undefined) {
    const branches = (schema.anyOf as Schema[]).map((branch) => validate(branch, value, path))
    if (!branches.some((branch) => branch.length === 0)) {
      const detail = branches.map((branch) => branch.map((p) => p.message).join('; ')).join(' | ')
      fail(`matches no alternative (${detail})`)
    }
  }

  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      fail(`must be >= ${schema.minimum}`)
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      fail(`must be <= ${schema.maximum}`)
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      fail(`must be > ${schema.exclusiveMinimum}`)
  }

  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength)
      fail(`must be at least ${schema.minLength} characters`)
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      fail(`must match ${schema.pattern}`)
    if (schema.format !== undefined) {
      if (schema.format !== 'uri')
        throw new Error(`${path}: format ${JSON.stringify(schema.format)} is not implemented`)
      if (!isUri(value)) fail('must be a URI')
    }
  }

  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      fail(`must have at least ${schema.minItems} items`)
    if (schema.items !== undefined)
      value.forEach((item, index) =>
        problems.push(...validate(schema.items as Schema, item, `${path}[${index}]`)),
      )
  }

  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>
    const properties = (schema.properties ?? {}) as Record<string, Schema>
    for (const name of (schema.required ?? []) as string[])
      if (!Object.hasOwn(object, name)) fail(`${name} is required`)
    for (const [name, child] of Object.entries(object)) {
      const childPath = `${path}.${name}`
      if (schema.propertyNames !== undefined) {
        for (const problem of validate(schema.propertyNames as Schema, name, childPath))
          problems.push({ path: childPath, message: `property name ${problem.message}` })
      }
      const declared = properties[name]
      if (declared !== undefined) problems.push(...validate(declared, child, childPath))
      else if (schema.additionalProperties === false)
        problems.push({ path: childPath, message: 'is not allowed (unknown key)' })
      else if (typeof schema.additionalProperties === 'object')
        problems.push(...validate(schema.additionalProperties as Schema, child, childPath))
    }
  }
  return problems
}
