/**
 * The schedule executor: it fires a schedule by calling the endpoint on the runtime's own address,
 * as AgentOS's `ScheduleExecutor` does, so the call never passes a gateway in front of it.
 */
import type { AppState } from '../context.js'
import { isJsonObject, type JsonObject } from '../params.js'
import { nowSeconds } from '../store.js'
import type { ScheduleRecord, ScheduleRunRecord } from './schedules.js'

/** `RUN_ENDPOINT_RE` (db/schemas/scheduler.py): a run start, one optional trailing slash. */
export const RUN_ENDPOINT = /^\/(agents|teams|workflows)\/([^/]+)\/runs\/?$/

/** Never forwarded to a run: a schedule always fires the live version, in the background. */
const SCRUBBED_FIELDS = ['stream', 'background', 'version', 'agno_component_version']
const COMPONENT_VERSION_KEY = 'agno_component_version'

type Outcome = Partial<Pick<ScheduleRunRecord, 'status' | 'status_code' | 'error' | 'output'>> &
  Partial<Pick<ScheduleRunRecord, 'run_id' | 'session_id'>>

/** Python's `quote(value, safe="")`. */
function quote(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

/** `_to_form_value`: booleans in lower case, objects as JSON, the rest as Python prints it. */
function toFormValue(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (value === null) return 'None'
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : JSON.stringify(value)
}

function metadataWithoutVersion(raw: unknown): unknown {
  let metadata = raw
  if (typeof metadata === 'string') {
    try {
      metadata = JSON.parse(metadata)
    } catch {
      return raw
    }
  }
  if (!isJsonObject(metadata)) return raw
  const { [COMPONENT_VERSION_KEY]: _pin, ...rest } = metadata
  return rest
}

/** The stored payload as the run form: no pinned version, background, owned by the owner. */
export function runForm(payload: JsonObject, owner: string | null): URLSearchParams {
  const form = new URLSearchParams()
  for (const [key, value] of Object.entries(payload)) {
    if (SCRUBBED_FIELDS.includes(key) || key === 'user_id') continue
    form.set(key, toFormValue(key === 'metadata' ? metadataWithoutVersion(value) : value))
  }
  form.set('stream', 'false')
  form.set('background', 'true')
  if (owner !== null) form.set('user_id', owner)
  return form
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text()
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

async function callEndpoint(app: AppState, schedule: ScheduleRecord): Promise<Outcome> {
  const method = schedule.method.toUpperCase()
  const headers: Record<string, string> = {
    authorization: `Bearer ${app.settings.internalServiceToken}`,
  }
  if (schedule.user_id !== null) headers['x-schedule-owner'] = quote(schedule.user_id)
  const isRun = method === 'POST' && RUN_ENDPOINT.test(schedule.endpoint)
  const payload = schedule.payload ?? {}
  const init: RequestInit = {
    method,
    headers,
    signal: AbortSignal.timeout(schedule.timeout_seconds * 1000),
  }
  if (isRun) {
    init.body = runForm(payload, schedule.user_id)
  } else if (method !== 'GET') {
    // httpx sends `json=payload` on a GET too; fetch cannot, so a GET goes without it
    headers['content-type'] = 'application/json'
    init.body = JSON.stringify(payload)
  }
  const response = await fetch(`${app.settings.baseUrl}${schedule.endpoint}`, init)
  const body = await readJson(response)
  const output = isJsonObject(body) ? body : null
  if (!response.ok) {
    return { status: 'failed', status_code: response.status, error: JSON.stringify(body), output }
  }
  const runStatus = output?.['status']
  return {
    // the demo's runs are finished when answered, so there is nothing left to poll
    status:
      !isRun || runStatus === 'COMPLETED'
        ? 'success'
        : runStatus === 'PAUSED'
          ? 'paused'
          : 'failed',
    status_code: response.status,
    output,
    ...(isRun && output !== null
      ? { run_id: String(output['run_id']), session_id: String(output['session_id']) }
      : {}),
  }
}

/** Fires `schedule` once and returns its run record (`executor.execute`, one attempt). */
export async function executeSchedule(
  app: AppState,
  schedule: ScheduleRecord,
): Promise<ScheduleRunRecord> {
  const run = app.schedules.startRun(schedule)
  try {
    Object.assign(run, await callEndpoint(app, schedule))
  } catch (error) {
    Object.assign(run, {
      status: 'failed',
      error: error instanceof Error ? error.message : String(error),
    })
  }
  run.completed_at = nowSeconds()
  return run
}
