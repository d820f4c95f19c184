/**
 * The bodies of `POST /schedules` and `PATCH /schedules/{id}` (`ScheduleCreate`, `ScheduleUpdate`
 * in routers/schedules/schema.py), then the router's own cron and time-zone checks (V3-SCHED-2).
 */
import type { RequestContext } from '../../context.js'
import type { JsonObject } from '../../params.js'
import { sendDetail } from '../../respond.js'
import {
  type FieldRule,
  type Rules,
  sendValidationErrors,
  validJsonBody,
} from '../../validation.js'
import { isValidCron, isValidTimezone } from '../../v3/cron.js'

const NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9 ._-]*$/
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

function checkName(name: string): string {
  if (NAME_PATTERN.test(name)) return name
  throw new Error(
    "Name must start with alphanumeric and contain only alphanumeric, spaces, '.', '_', '-'",
  )
}

function checkMethod(method: string): string {
  const upper = method.toUpperCase()
  if (METHODS.includes(upper)) return upper
  throw new Error('Method must be GET, POST, PUT, PATCH, or DELETE')
}

function checkEndpoint(endpoint: string): string {
  if (!endpoint.startsWith('/')) throw new Error("Endpoint must start with '/'")
  if (endpoint.includes('://')) throw new Error('Endpoint must be a path, not a full URL')
  return endpoint
}

/** Every field as `ScheduleUpdate` has it: optional, and null accepted by the field itself. */
const UPDATE_RULES: Rules = {
  name: { kind: 'string', maxLength: 255, check: checkName },
  cron_expr: { kind: 'string', maxLength: 128 },
  endpoint: { kind: 'string', maxLength: 512, check: checkEndpoint },
  method: { kind: 'string', maxLength: 10, check: checkMethod },
  description: { kind: 'string', maxLength: 1024 },
  payload: { kind: 'object' },
  timezone: { kind: 'string', maxLength: 64 },
  timeout_seconds: { kind: 'int', min: 1, max: 86400 },
  max_retries: { kind: 'int', min: 0, max: 10 },
  retry_delay_seconds: { kind: 'int', min: 1, max: 3600 },
}

const CREATE_DEFAULTS: Record<string, Partial<FieldRule>> = {
  name: { required: true },
  cron_expr: { required: true },
  endpoint: { required: true },
  method: { default: 'POST' },
  description: { nullable: true, default: null },
  payload: { nullable: true, default: null },
  timezone: { default: 'UTC' },
  timeout_seconds: { default: 3600 },
  max_retries: { default: 0 },
  retry_delay_seconds: { default: 60 },
}

const CREATE_RULES: Rules = Object.fromEntries(
  Object.entries(UPDATE_RULES).map(([name, rule]) => [name, { ...rule, ...CREATE_DEFAULTS[name] }]),
)

const NULLABLE_RULES: Rules = Object.fromEntries(
  Object.entries(UPDATE_RULES).map(([name, rule]) => [name, { ...rule, nullable: true }]),
)

/** `reject_null_required_fields` of `ScheduleUpdate`. */
const NOT_NULL = [
  'name',
  'cron_expr',
  'endpoint',
  'method',
  'timezone',
  'timeout_seconds',
  'max_retries',
  'retry_delay_seconds',
]

export function validCreate(ctx: RequestContext): JsonObject | undefined {
  return validJsonBody(ctx, CREATE_RULES)
}

/** The fields a PATCH sets (`model_dump(exclude_unset=True)`). */
export function validUpdate(ctx: RequestContext): JsonObject | undefined {
  const updates = validJsonBody(ctx, NULLABLE_RULES)
  const nulled = NOT_NULL.find((name) => updates?.[name] === null)
  if (updates === undefined || nulled === undefined) return updates
  const msg = `Value error, '${nulled}' cannot be set to null`
  sendValidationErrors(ctx, [{ type: 'value_error', loc: ['body'], msg, input: updates }])
  return undefined
}

/** The router's own 422s for a cron expression or time zone that croniter or pytz refuse. */
export function validTiming(ctx: RequestContext, cron: string, timezone: string): boolean {
  if (!isValidCron(cron)) sendDetail(ctx.res, 422, `Invalid cron expression: ${cron}`)
  else if (!isValidTimezone(timezone)) sendDetail(ctx.res, 422, `Invalid timezone: ${timezone}`)
  else return true
  return false
}
