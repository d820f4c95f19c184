/**
 * The durable job queue's operator surface (V3-QUEUE-1, the stored router that answers 404 when
 * the queue is off, whose list is `{"jobs": [...]}`). Its admin gate returns early when no JWT
 * identity is present, so on an open AgentOS anyone reads every user's jobs (V3-QUEUE-2).
 */
import type { RequestContext } from '../../context.js'
import { sendDetail, sendJson } from '../../respond.js'
import type { Router } from '../../router.js'
import { nowSeconds } from '../../store.js'
import { validQuery } from '../../validation.js'
import { JOB_STATUSES, type JobRecord } from '../../v3/jobs.js'

function jobView(ctx: RequestContext, job: JobRecord) {
  const { requeued: _requeued, ...fields } = job
  return { ...fields, status: ctx.app.jobs.status(job, ctx.app.store.runs) }
}

function listJobs(ctx: RequestContext): void {
  const query = validQuery(ctx, { status: { kind: 'string' }, limit: { kind: 'int', default: 50 } })
  if (query === undefined) return
  const status = query['status'] as string | undefined
  if (status !== undefined && !JOB_STATUSES.includes(status)) {
    const expected = `(${JOB_STATUSES.map((name) => `'${name}'`).join(', ')})`
    return sendDetail(ctx.res, 400, `Invalid status; expected one of ${expected}`)
  }
  const limit = Math.min(query['limit'] as number, 200)
  const jobs = ctx.app.jobs
    .all()
    .map((job) => jobView(ctx, job))
    .filter((job) => status === undefined || job.status === status)
  sendJson(ctx.res, 200, { jobs: jobs.slice(0, Math.max(limit, 0)) })
}

function requireJob(ctx: RequestContext): JobRecord | undefined {
  const id = ctx.params['job_id'] ?? ''
  const job = ctx.app.jobs.get(id)
  if (job === undefined) sendDetail(ctx.res, 404, `Job queue job ${id} not found`)
  return job
}

/** Counts by status and the oldest queued job's age; the field names are not from the source. */
function stats(ctx: RequestContext): void {
  const jobs = ctx.app.jobs.all().map((job) => jobView(ctx, job))
  const counts = Object.fromEntries(
    JOB_STATUSES.map((status) => [status, jobs.filter((job) => job.status === status).length]),
  )
  const queued = jobs.filter((job) => job.status === 'queued').map((job) => job.updated_at)
  const oldest = queued.length === 0 ? null : nowSeconds() - Math.min(...queued)
  sendJson(ctx.res, 200, { counts, oldest_queued_age_seconds: oldest })
}

export function registerQueueRoutes(router: Router): void {
  router
    .add('GET', '/queue/jobs', listJobs)
    .add('GET', '/queue/jobs/{job_id}', (ctx) => {
      const job = requireJob(ctx)
      if (job !== undefined) sendJson(ctx.res, 200, jobView(ctx, job))
    })
    .add('POST', '/queue/jobs/{job_id}/requeue', (ctx) => {
      const id = ctx.params['job_id'] ?? ''
      if (!ctx.app.jobs.requeue(id, ctx.app.store.runs)) {
        return sendDetail(ctx.res, 400, `Job ${id} not found or not in a requeueable state`)
      }
      const job = ctx.app.jobs.get(id)
      if (job !== undefined) sendJson(ctx.res, 200, jobView(ctx, job))
    })
    .add('GET', '/queue/stats', stats)
}
