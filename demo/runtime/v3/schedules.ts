/** 3.0's cron schedules and the record of each time one fired. */
import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../params.js'
import { nowSeconds } from '../store.js'
import { nextRunAt } from './cron.js'

export interface ScheduleRecord {
  id: string
  name: string
  description: string | null
  method: string
  endpoint: string
  payload: JsonObject | null
  cron_expr: string
  timezone: string
  timeout_seconds: number
  max_retries: number
  retry_delay_seconds: number
  enabled: boolean
  next_run_at: number | null
  /** the owner; an open AgentOS records none (the body's `user_id` is not a field) */
  user_id: string | null
  created_at: number
  updated_at: number | null
}

export interface ScheduleRunRecord {
  id: string
  schedule_id: string
  attempt: number
  triggered_at: number
  completed_at: number | null
  status: string
  status_code: number | null
  run_id: string | null
  session_id: string | null
  error: string | null
  input: JsonObject | null
  output: JsonObject | null
  requirements: JsonObject[] | null
  /** denormalised from the schedule */
  user_id: string | null
  created_at: number
}

export type ScheduleFields = Omit<
  ScheduleRecord,
  'id' | 'enabled' | 'next_run_at' | 'user_id' | 'created_at' | 'updated_at'
>

export class ScheduleStore {
  readonly #schedules = new Map<string, ScheduleRecord>()
  readonly #runs = new Map<string, ScheduleRunRecord>()

  create(fields: ScheduleFields): ScheduleRecord {
    const schedule: ScheduleRecord = {
      ...fields,
      id: randomUUID(),
      enabled: true,
      next_run_at: nextRunAt(fields.cron_expr, fields.timezone),
      user_id: null,
      created_at: nowSeconds(),
      updated_at: null,
    }
    this.#schedules.set(schedule.id, schedule)
    return schedule
  }

  get(id: string): ScheduleRecord | undefined {
    return this.#schedules.get(id)
  }

  byName(name: string): ScheduleRecord | undefined {
    return this.all().find((schedule) => schedule.name === name)
  }

  all(): ScheduleRecord[] {
    return [...this.#schedules.values()]
  }

  update(schedule: ScheduleRecord, updates: Partial<ScheduleRecord>): ScheduleRecord {
    Object.assign(schedule, updates, { updated_at: nowSeconds() })
    return schedule
  }

  delete(id: string): void {
    this.#schedules.delete(id)
    for (const run of this.runsOf(id)) this.#runs.delete(run.id)
  }

  startRun(schedule: ScheduleRecord): ScheduleRunRecord {
    const now = nowSeconds()
    const run: ScheduleRunRecord = {
      id: randomUUID(),
      schedule_id: schedule.id,
      attempt: 1,
      triggered_at: now,
      completed_at: null,
      status: 'running',
      status_code: null,
      run_id: null,
      session_id: null,
      error: null,
      input: null,
      output: null,
      requirements: null,
      user_id: schedule.user_id,
      created_at: now,
    }
    this.#runs.set(run.id, run)
    return run
  }

  run(id: string): ScheduleRunRecord | undefined {
    return this.#runs.get(id)
  }

  runsOf(scheduleId: string): ScheduleRunRecord[] {
    return [...this.#runs.values()].filter((run) => run.schedule_id === scheduleId)
  }
}
