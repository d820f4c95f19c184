/**
 * The durable job queue of 3.0 (`QueueConfig(durable=True)`): every background run is a job that
 * carries the run's user and its verbatim input, whoever started it.
 */
import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../params.js'
import { FAMILY_INFO, nowSeconds, type RunRecord, type SessionType } from '../store.js'

/** Guessed: the stored router validates against `JOB_STATUSES`, whose text was not read. */
export const JOB_STATUSES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled']

const REQUEUEABLE = ['failed', 'cancelled']

/** A job follows its run until an operator requeues it. */
const STATUS_OF_RUN: Record<string, string> = {
  PENDING: 'queued',
  RUNNING: 'running',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  ERROR: 'failed',
  CANCELLED: 'cancelled',
}

export interface JobRecord {
  id: string
  component_type: SessionType
  component_id: string
  run_id: string
  session_id: string
  user_id: string | null
  idempotency_key: string | null
  /** the run's form fields as sent */
  payload: JsonObject
  attempts: number
  max_attempts: number
  requeued: boolean
  created_at: number
  updated_at: number
}

export class JobQueue {
  readonly #jobs = new Map<string, JobRecord>()

  enqueue(run: RunRecord, payload: JsonObject, idempotencyKey: string | null): JobRecord {
    const now = nowSeconds()
    const job: JobRecord = {
      id: randomUUID(),
      component_type: FAMILY_INFO[run.family].sessionType,
      component_id: run.component_id,
      run_id: run.run_id,
      session_id: run.session_id,
      user_id: run.user_id,
      idempotency_key: idempotencyKey,
      payload,
      attempts: 1,
      max_attempts: 1,
      requeued: false,
      created_at: now,
      updated_at: now,
    }
    this.#jobs.set(job.id, job)
    return job
  }

  get(id: string): JobRecord | undefined {
    return this.#jobs.get(id)
  }

  all(): JobRecord[] {
    return [...this.#jobs.values()]
  }

  status(job: JobRecord, runs: ReadonlyMap<string, RunRecord>): string {
    if (job.requeued) return 'queued'
    return STATUS_OF_RUN[runs.get(job.run_id)?.status ?? ''] ?? 'completed'
  }

  /** One more attempt for a failed or cancelled job; false when there is none such. */
  requeue(id: string, runs: ReadonlyMap<string, RunRecord>): boolean {
    const job = this.#jobs.get(id)
    if (job === undefined || !REQUEUEABLE.includes(this.status(job, runs))) return false
    job.requeued = true
    job.max_attempts += 1
    job.updated_at = nowSeconds()
    return true
  }
}
