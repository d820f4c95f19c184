/**
 * FastAPI's request validation for the 3.0 routes' JSON bodies, query and path parameters: each
 * field is read as pydantic reads it (lax: `"5"` is an int, `"yes"` a bool) and every problem
 * becomes one entry of the 422 `detail` list, with pydantic's type and message.
 */
import type { RequestContext } from './context.js'
import { type JsonObject, isJsonObject, requireJsonObject } from './params.js'
import { sendDetail } from './respond.js'

export interface ValidationIssue {
  type: string
  loc: (string | number)[]
  msg: string
  input: unknown
  ctx?: JsonObject
}

export interface FieldRule {
  kind: 'string' | 'int' | 'bool' | 'object' | 'enum'
  required?: boolean
  /** `Optional[...]`: an explicit null is kept */
  nullable?: boolean
  default?: unknown
  maxLength?: number
  min?: number
  max?: number
  /** for `enum` */
  values?: readonly string[]
  /** a pydantic field validator for strings: returns the value to keep, throws its message */
  check?: (value: string) => string
}

export type Rules = Record<string, FieldRule>

type Source = 'body' | 'query' | 'path'

interface Outcome {
  value?: unknown
  issue?: Omit<ValidationIssue, 'loc'>
}

const TRUE_WORDS = ['1', 'on', 't', 'true', 'y', 'yes']
const FALSE_WORDS = ['0', 'off', 'f', 'false', 'n', 'no']

function issue(type: string, msg: string, input: unknown, ctx?: JsonObject): Outcome {
  return { issue: ctx === undefined ? { type, msg, input } : { type, msg, input, ctx } }
}

function readString(rule: FieldRule, input: unknown): Outcome {
  if (typeof input !== 'string')
    return issue('string_type', 'Input should be a valid string', input)
  if (rule.maxLength !== undefined && input.length > rule.maxLength) {
    const msg = `String should have at most ${rule.maxLength} characters`
    return issue('string_too_long', msg, input, { max_length: rule.maxLength })
  }
  if (rule.check === undefined) return { value: input }
  try {
    return { value: rule.check(input) }
  } catch (error) {
    const msg = `Value error, ${error instanceof Error ? error.message : String(error)}`
    return issue('value_error', msg, input, { error: {} })
  }
}

function readInt(rule: FieldRule, input: unknown): Outcome {
  let parsed: number
  if (typeof input === 'string') {
    if (!/^\s*[-+]?\d+\s*$/.test(input)) {
      const msg = 'Input should be a valid integer, unable to parse string as an integer'
      return issue('int_parsing', msg, input)
    }
    parsed = Number(input)
  } else if (typeof input === 'number') {
    if (!Number.isInteger(input)) {
      const msg = 'Input should be a valid integer, got a number with a fractional part'
      return issue('int_from_float', msg, input)
    }
    parsed = input
  } else {
    return issue('int_type', 'Input should be a valid integer', input)
  }
  if (rule.min !== undefined && parsed < rule.min) {
    const msg = `Input should be greater than or equal to ${rule.min}`
    return issue('greater_than_equal', msg, input, { ge: rule.min })
  }
  if (rule.max !== undefined && parsed > rule.max) {
    const msg = `Input should be less than or equal to ${rule.max}`
    return issue('less_than_equal', msg, input, { le: rule.max })
  }
  return { value: parsed }
}

function readBool(input: unknown): Outcome {
  if (typeof input === 'boolean') return { value: input }
  const word = typeof input === 'string' ? input.toLowerCase() : input === 1 ? '1' : input
  if (TRUE_WORDS.includes(String(word))) return { value: true }
  if (FALSE_WORDS.includes(String(word))) return { value: false }
  return issue('bool_parsing', 'Input should be a valid boolean, unable to interpret input', input)
}

function readEnum(rule: FieldRule, input: unknown): Outcome {
  const values = rule.values ?? []
  if (typeof input === 'string' && values.includes(input)) return { value: input }
  const quoted = values.map((value) => `'${value}'`)
  const expected = `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1) ?? ''}`
  return issue('enum', `Input should be ${expected}`, input, { expected })
}

function readField(rule: FieldRule, input: unknown): Outcome {
  if (input === null && rule.nullable === true) return { value: null }
  switch (rule.kind) {
    case 'string':
      return readString(rule, input)
    case 'int':
      return readInt(rule, input)
    case 'bool':
      return readBool(input)
    case 'enum':
      return readEnum(rule, input)
    case 'object':
      return isJsonObject(input)
        ? { value: input }
        : issue('dict_type', 'Input should be a valid dictionary', input)
  }
}

export interface Validated {
  /** the fields given (and the defaults of those not given) */
  values: JsonObject
  issues: ValidationIssue[]
}

/** Validates `fields` (a JSON body, or first query/path values) against `rules`. */
export function validate(source: Source, fields: JsonObject, rules: Rules): Validated {
  const values: JsonObject = {}
  const issues: ValidationIssue[] = []
  for (const [name, rule] of Object.entries(rules)) {
    if (!Object.hasOwn(fields, name)) {
      if (rule.required === true) {
        issues.push({ type: 'missing', loc: [source, name], msg: 'Field required', input: fields })
      } else if (rule.default !== undefined) {
        values[name] = rule.default
      }
      continue
    }
    const outcome = readField(rule, fields[name])
    if (outcome.issue !== undefined) {
      const { type, ...rest } = outcome.issue
      issues.push({ type, loc: [source, name], ...rest })
    } else values[name] = outcome.value
  }
  return { values, issues }
}

/** The first value of each query parameter, as FastAPI reads a scalar one. */
export function queryFields(ctx: RequestContext): JsonObject {
  const fields: JsonObject = {}
  for (const [key, values] of Object.entries(ctx.query)) fields[key] = values[0]
  return fields
}

export function sendValidationErrors(ctx: RequestContext, issues: ValidationIssue[]): void {
  sendDetail(ctx.res, 422, issues)
}

/** Validates the query; answers 422 and returns undefined when it is not acceptable. */
export function validQuery(ctx: RequestContext, rules: Rules): JsonObject | undefined {
  const { values, issues } = validate('query', queryFields(ctx), rules)
  if (issues.length === 0) return values
  sendValidationErrors(ctx, issues)
  return undefined
}

/** Validates a JSON body; answers 422 and returns undefined when it is not acceptable. */
export function validJsonBody(ctx: RequestContext, rules: Rules): JsonObject | undefined {
  const body = requireJsonObject(ctx)
  if (body === undefined) return undefined
  const { values, issues } = validate('body', body, rules)
  if (issues.length === 0) return values
  sendValidationErrors(ctx, issues)
  return undefined
}

/** An integer path parameter, or a 422 (sent; undefined returned). */
export function intPathParam(ctx: RequestContext, name: string): number | undefined {
  const { values, issues } = validate('path', { [name]: ctx.params[name] }, { [name]: INT })
  if (issues.length === 0) return values[name] as number
  sendValidationErrors(ctx, issues)
  return undefined
}

export const INT: FieldRule = { kind: 'int', required: true }
