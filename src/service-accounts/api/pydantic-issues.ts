import type { ValidationIssue } from '../../errors.js'

/**
 * Validation issues worded as FastAPI/pydantic v2 words them, because AgentOS clients (its CLI and
 * UI) read the 422 body: `{"detail": [{type, loc, msg, input, ctx?}]}`.
 */
export type Loc = (string | number)[]

export const issues = {
  missing: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'missing',
    loc,
    msg: 'Field required',
    input,
  }),
  stringType: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'string_type',
    loc,
    msg: 'Input should be a valid string',
    input,
  }),
  stringTooLong: (loc: Loc, input: unknown, max: number): ValidationIssue => ({
    type: 'string_too_long',
    loc,
    msg: `String should have at most ${max} characters`,
    input,
    ctx: { max_length: max },
  }),
  valueError: (loc: Loc, input: unknown, error: string): ValidationIssue => ({
    type: 'value_error',
    loc,
    msg: `Value error, ${error}`,
    input,
    ctx: { error },
  }),
  listType: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'list_type',
    loc,
    msg: 'Input should be a valid list',
    input,
  }),
  modelAttributesType: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'model_attributes_type',
    loc,
    msg: 'Input should be a valid dictionary or object to extract fields from',
    input,
  }),
  literalError: (loc: Loc, input: unknown, expected: string): ValidationIssue => ({
    type: 'literal_error',
    loc,
    msg: `Input should be ${expected}`,
    input,
    ctx: { expected },
  }),
  intType: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'int_type',
    loc,
    msg: 'Input should be a valid integer',
    input,
  }),
  intParsing: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'int_parsing',
    loc,
    msg: 'Input should be a valid integer, unable to parse string as an integer',
    input,
  }),
  intFromFloat: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'int_from_float',
    loc,
    msg: 'Input should be a valid integer, got a number with a fractional part',
    input,
  }),
  greaterThanEqual: (loc: Loc, input: unknown, ge: number): ValidationIssue => ({
    type: 'greater_than_equal',
    loc,
    msg: `Input should be greater than or equal to ${ge}`,
    input,
    ctx: { ge },
  }),
  lessThanEqual: (loc: Loc, input: unknown, le: number): ValidationIssue => ({
    type: 'less_than_equal',
    loc,
    msg: `Input should be less than or equal to ${le}`,
    input,
    ctx: { le },
  }),
  boolType: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'bool_type',
    loc,
    msg: 'Input should be a valid boolean',
    input,
  }),
  boolParsing: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'bool_parsing',
    loc,
    msg: 'Input should be a valid boolean, unable to interpret input',
    input,
  }),
  datetimeParsing: (loc: Loc, input: unknown, error: string): ValidationIssue => ({
    type: 'datetime_from_date_parsing',
    loc,
    msg: `Input should be a valid datetime or date, ${error}`,
    input,
    ctx: { error },
  }),
  jsonInvalid: (position: number, error: string): ValidationIssue => ({
    type: 'json_invalid',
    loc: ['body', position],
    msg: 'JSON decode error',
    input: {},
    ctx: { error },
  }),
}

type Parsed<T> = { ok: true; value: T } | { ok: false; issue: ValidationIssue }

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes'])
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no'])

/** pydantic's lax `int`: ints, integral floats, numeric strings, booleans. */
export function laxInt(input: unknown, loc: Loc): Parsed<number> {
  if (typeof input === 'boolean') return { ok: true, value: input ? 1 : 0 }
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, issue: issues.intType(loc, input) }
    if (!Number.isInteger(input)) return { ok: false, issue: issues.intFromFloat(loc, input) }
    return { ok: true, value: input }
  }
  if (typeof input === 'string') {
    const trimmed = input.trim()
    if (/^[+-]?\d+$/.test(trimmed)) return { ok: true, value: Number(trimmed) }
    return { ok: false, issue: issues.intParsing(loc, input) }
  }
  return { ok: false, issue: issues.intType(loc, input) }
}

/** pydantic's lax `bool`: booleans, 0/1, and the usual words in any case. */
export function laxBool(input: unknown, loc: Loc): Parsed<boolean> {
  if (typeof input === 'boolean') return { ok: true, value: input }
  if (input === 0 || input === 1) return { ok: true, value: input === 1 }
  if (typeof input === 'string') {
    const word = input.trim().toLowerCase()
    if (TRUE_WORDS.has(word)) return { ok: true, value: true }
    if (FALSE_WORDS.has(word)) return { ok: true, value: false }
    return { ok: false, issue: issues.boolParsing(loc, input) }
  }
  if (typeof input === 'number') return { ok: false, issue: issues.boolParsing(loc, input) }
  return { ok: false, issue: issues.boolType(loc, input) }
}
