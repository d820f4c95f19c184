/** Reading query, form and JSON inputs, and FastAPI-shaped validation errors. */
import type { RequestContext } from './context.js'
import { sendDetail } from './respond.js'

export type JsonObject = Record<string, unknown>

export function firstValue(values: Record<string, string[]> | undefined, key: string) {
  return values?.[key]?.[0]
}

export function queryParam(ctx: RequestContext, key: string): string | undefined {
  return firstValue(ctx.query, key)
}

export function formField(ctx: RequestContext, key: string): string | undefined {
  return firstValue(ctx.body.form, key)
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function jsonObject(ctx: RequestContext): JsonObject | undefined {
  return isJsonObject(ctx.body.json) ? ctx.body.json : undefined
}

export function stringField(object: JsonObject | undefined, key: string): string | undefined {
  const value = object?.[key]
  return typeof value === 'string' ? value : undefined
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : []
}

/** pydantic's lenient bool parsing, defaulting to false */
export function parseBool(value: string | undefined): boolean {
  return ['true', '1', 'yes', 'on', 't', 'y'].includes((value ?? '').toLowerCase())
}

function validationError(ctx: RequestContext, type: string, loc: (string | number)[], msg: string) {
  sendDetail(ctx.res, 422, [{ type, loc, msg, input: null }])
}

/** Sends the error and returns undefined when the body is not a usable JSON object. */
export function requireJsonObject(ctx: RequestContext): JsonObject | undefined {
  if (ctx.body.problem === 'too-large') {
    sendDetail(ctx.res, 413, 'Request body too large')
    return undefined
  }
  if (ctx.body.problem === 'invalid-json') {
    validationError(ctx, 'json_invalid', ['body', 0], 'JSON decode error')
    return undefined
  }
  const object = jsonObject(ctx)
  if (object === undefined) validationError(ctx, 'missing', ['body'], 'Field required')
  return object
}

/** Sends the error and returns false when a form body could not be parsed. */
export function requireWellFormedForm(ctx: RequestContext): boolean {
  if (ctx.body.problem !== 'malformed-form') return true
  sendDetail(ctx.res, 400, 'There was an error parsing the body')
  return false
}

export function requireFormField(ctx: RequestContext, key: string): string | undefined {
  const value = formField(ctx, key)
  if (value === undefined) validationError(ctx, 'missing', ['body', key], 'Field required')
  return value
}

/** The user id a request names: query first, then a JSON body, then a form field. */
export function requestedUserId(ctx: RequestContext): string | null {
  return (
    queryParam(ctx, 'user_id') ??
    stringField(jsonObject(ctx), 'user_id') ??
    formField(ctx, 'user_id') ??
    null
  )
}

export interface Page<T> {
  data: T[]
  meta: { page: number; limit: number; total_pages: number; total_count: number }
}

function positiveInt(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? '', 10)
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback
}

export function paginate<T>(ctx: RequestContext, items: T[]): Page<T> {
  const limit = positiveInt(queryParam(ctx, 'limit'), 20)
  const page = positiveInt(queryParam(ctx, 'page'), 1)
  const data = items.slice((page - 1) * limit, page * limit)
  const total_pages = Math.max(1, Math.ceil(items.length / limit))
  return { data, meta: { page, limit, total_pages, total_count: items.length } }
}

/** A named input from a form field, else a JSON body field, else the query. */
export function inputField(ctx: RequestContext, key: string): string | undefined {
  return formField(ctx, key) ?? stringField(jsonObject(ctx), key) ?? queryParam(ctx, key)
}
