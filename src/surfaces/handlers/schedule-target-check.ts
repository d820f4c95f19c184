import { GatewayError } from '../../errors.js'
import type { ForwardPlan } from '../../upstream/forward-plan.js'
import { isJsonObject } from '../common/json.js'
import { lookupFailed } from '../common/upstream-lookup.js'
import type { HandlerContext } from './handler-context.js'
import { OWNED_ROWS } from './owned-rows.js'
import {
  targetOfCreate,
  targetOfUpdate,
  targetRefusal,
  type ScheduleTarget,
} from './schedule-target.js'

/** A stored schedule as the gateway reads it from the upstream. */
interface StoredSchedule {
  readonly target: ScheduleTarget
  readonly enabled: boolean
}

/**
 * V3-SCHED-1 for a caller under authorization: the target a schedule is created with, repointed
 * to, enabled or triggered with must be one the caller may schedule. An admin may schedule any,
 * so nothing is read for one. A stored schedule the upstream does not have is its own 404.
 */
export async function checkScheduleTarget(
  ctx: HandlerContext,
  which: 'body' | 'stored' | 'triggered' | 'changed',
  plan: ForwardPlan,
): Promise<ForwardPlan> {
  const principal = ctx.principal
  if (!principal.authorizationEnabled) return plan
  const scopes = principal.scopes ?? []
  const grants = ctx.deps.grants
  if (grants.satisfies(scopes, grants.adminScope, undefined)) return plan
  let target: ScheduleTarget | undefined
  switch (which) {
    case 'body':
    case 'changed': {
      const body = await ctx.json()
      target =
        which === 'body'
          ? targetOfCreate(body)
          : await targetOfUpdate(body, async () => (await storedSchedule(ctx))?.target)
      break
    }
    case 'stored':
    case 'triggered': {
      const stored = await storedSchedule(ctx)
      // Triggering a disabled schedule is the handler's 409, before the target is checked.
      if (which === 'stored' || stored?.enabled === true) target = stored?.target
      break
    }
  }
  const refused = target === undefined ? undefined : targetRefusal(grants, scopes, target)
  if (refused !== undefined) {
    throw new GatewayError('ACCESS_DENIED', refused, { reason: 'handlers.schedule_target' })
  }
  return plan
}

async function storedSchedule(ctx: HandlerContext): Promise<StoredSchedule | undefined> {
  const rows = OWNED_ROWS.schedule
  const id = ctx.segment(rows.idSegment)
  const answer = await ctx.deps.lookup(`${rows.base}/${encodeURIComponent(id)}`)
  if (answer.status === 404) return undefined
  const row = answer.value
  if (answer.status !== 200 || !isJsonObject(row)) throw lookupFailed('handlers.schedule_lookup')
  const { endpoint, method = 'POST', enabled } = row
  if (typeof endpoint !== 'string' || typeof method !== 'string' || typeof enabled !== 'boolean') {
    throw lookupFailed('handlers.schedule_lookup')
  }
  return { target: { endpoint, method }, enabled }
}
