/**
 * Schedules as an open AgentOS 3.0 answers them (routers/schedules/router.py). With no auth state
 * every caller is unscoped: the target-permission check is skipped (V3-SCHED-1), a new schedule
 * has no owner (V3-SCHED-2), and every schedule is visible to everyone (V3-SCHED-3).
 */
import type { RequestContext } from '../../context.js'
import { sendDetail, sendEmpty, sendJson } from '../../respond.js'
import type { Router } from '../../router.js'
import { validQuery } from '../../validation.js'
import { nextRunAt } from '../../v3/cron.js'
import { executeSchedule } from '../../v3/executor.js'
import type { ScheduleFields, ScheduleRecord, ScheduleRunRecord } from '../../v3/schedules.js'
import { limitRule, PAGE, pageOf } from './pages.js'
import { validCreate, validTiming, validUpdate } from './schedule-body.js'

/** `ScheduleResponse`: the row without its owner. */
function scheduleView(schedule: ScheduleRecord) {
  const { user_id: _owner, ...fields } = schedule
  return fields
}

/** `ScheduleStateResponse`, the answer of enable and disable. */
function stateView({ id, name, enabled, next_run_at, updated_at }: ScheduleRecord) {
  return { id, name, enabled, next_run_at, updated_at }
}

/** `ScheduleRunResponse` */
function runView(run: ScheduleRunRecord) {
  const { user_id: _owner, ...fields } = run
  return fields
}

function requireSchedule(ctx: RequestContext): ScheduleRecord | undefined {
  const schedule = ctx.app.schedules.get(ctx.params['schedule_id'] ?? '')
  if (schedule === undefined) sendDetail(ctx.res, 404, 'Schedule not found')
  return schedule
}

function nameTaken(ctx: RequestContext, name: string): boolean {
  if (ctx.app.schedules.byName(name) === undefined) return false
  sendDetail(ctx.res, 409, `Schedule with name '${name}' already exists`)
  return true
}

function list(ctx: RequestContext): void {
  const query = validQuery(ctx, {
    enabled: { kind: 'bool' },
    limit: limitRule(100, 1000),
    page: PAGE,
  })
  if (query === undefined) return
  const enabled = query['enabled'] as boolean | undefined
  const schedules = ctx.app.schedules
    .all()
    .filter((schedule) => enabled === undefined || schedule.enabled === enabled)
  const page = pageOf(
    schedules.map(scheduleView),
    query['page'] as number,
    query['limit'] as number,
  )
  sendJson(ctx.res, 200, page)
}

function create(ctx: RequestContext): void {
  const body = validCreate(ctx)
  if (body === undefined) return
  const fields = body as unknown as ScheduleFields
  if (!validTiming(ctx, fields.cron_expr, fields.timezone) || nameTaken(ctx, fields.name)) return
  sendJson(ctx.res, 201, scheduleView(ctx.app.schedules.create(fields)))
}

function update(ctx: RequestContext): void {
  // FastAPI validates the body before the handler looks the schedule up
  const updates = validUpdate(ctx)
  const schedule = updates === undefined ? undefined : requireSchedule(ctx)
  if (schedule === undefined || updates === undefined) return
  if (Object.keys(updates).length === 0) return sendJson(ctx.res, 200, scheduleView(schedule))
  const changes = updates as Partial<ScheduleRecord>
  if (changes.cron_expr !== undefined || changes.timezone !== undefined) {
    const cron = changes.cron_expr ?? schedule.cron_expr
    const timezone = changes.timezone ?? schedule.timezone
    if (!validTiming(ctx, cron, timezone)) return
    if (schedule.enabled) changes.next_run_at = nextRunAt(cron, timezone)
  }
  if (
    changes.name !== undefined &&
    changes.name !== schedule.name &&
    nameTaken(ctx, changes.name)
  ) {
    return
  }
  sendJson(ctx.res, 200, scheduleView(ctx.app.schedules.update(schedule, changes)))
}

function setEnabled(enabled: boolean) {
  return (ctx: RequestContext): void => {
    const schedule = requireSchedule(ctx)
    if (schedule === undefined) return
    const next = enabled ? { next_run_at: nextRunAt(schedule.cron_expr, schedule.timezone) } : {}
    sendJson(ctx.res, 200, stateView(ctx.app.schedules.update(schedule, { enabled, ...next })))
  }
}

async function trigger(ctx: RequestContext): Promise<void> {
  const schedule = requireSchedule(ctx)
  if (schedule === undefined) return
  if (!schedule.enabled) return sendDetail(ctx.res, 409, 'Schedule is disabled')
  sendJson(ctx.res, 200, runView(await executeSchedule(ctx.app, schedule)))
}

function listRuns(ctx: RequestContext): void {
  const query = validQuery(ctx, { limit: limitRule(100, 1000), page: PAGE })
  const schedule = query === undefined ? undefined : requireSchedule(ctx)
  if (schedule === undefined || query === undefined) return
  const runs = ctx.app.schedules.runsOf(schedule.id).map(runView)
  sendJson(ctx.res, 200, pageOf(runs, query['page'] as number, query['limit'] as number))
}

function getRun(ctx: RequestContext): void {
  const run = ctx.app.schedules.run(ctx.params['run_id'] ?? '')
  if (run === undefined || run.schedule_id !== ctx.params['schedule_id']) {
    return sendDetail(ctx.res, 404, 'Schedule run not found')
  }
  sendJson(ctx.res, 200, runView(run))
}

export function registerScheduleRoutes(router: Router): void {
  router
    .add('GET', '/schedules', list)
    .add('POST', '/schedules', create)
    .add('GET', '/schedules/{schedule_id}', (ctx) => {
      const schedule = requireSchedule(ctx)
      if (schedule !== undefined) sendJson(ctx.res, 200, scheduleView(schedule))
    })
    .add('PATCH', '/schedules/{schedule_id}', update)
    .add('DELETE', '/schedules/{schedule_id}', (ctx) => {
      const schedule = requireSchedule(ctx)
      if (schedule === undefined) return
      ctx.app.schedules.delete(schedule.id)
      sendEmpty(ctx.res, 204)
    })
    .add('POST', '/schedules/{schedule_id}/enable', setEnabled(true))
    .add('POST', '/schedules/{schedule_id}/disable', setEnabled(false))
    .add('POST', '/schedules/{schedule_id}/trigger', trigger)
    .add('GET', '/schedules/{schedule_id}/runs', listRuns)
    .add('GET', '/schedules/{schedule_id}/runs/{run_id}', getRun)
}
