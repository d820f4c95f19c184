import type { IncomingHttpHeaders } from 'node:http'
import { GatewayError } from '../errors.js'
import { scopedUserId, type Principal } from '../principal.js'

/** The 3.0 scheduler's executor names a schedule's owner in this header (normalized name). */
export const SCHEDULE_OWNER_HEADER = 'x-schedule-owner'

export interface CallerScopeOptions {
  readonly adminScope: string
  readonly userIsolation: boolean
  /** The AgentOS line scopes the scheduler to `X-Schedule-Owner` (3.0). */
  readonly scheduleOwnerHeader: boolean
}

/** Who a request acts as for AgentOS's data scoping. */
export interface CallerScope {
  /** The user id AgentOS's `get_scoped_user_id` gives the caller (ISO-1); null: unscoped. */
  readonly scoped: string | null
  /**
   * True when the 3.0 scheduler acts for a schedule's owner (V3-ISO-3): its run keeps the user id
   * the scope says rather than the principal's own.
   */
  readonly forScheduleOwner: boolean
}

/**
 * The caller's scope, as 3.0's `get_scoped_user_id` reads it: ISO-1, except that the scheduler
 * acts as the owner its `X-Schedule-Owner` names under isolation and is unscoped otherwise
 * (V3-ISO-3). The header means nothing for any other caller, or on a line without it.
 */
export function callerScope(
  principal: Principal,
  headers: IncomingHttpHeaders,
  options: CallerScopeOptions,
): CallerScope {
  const owner = options.scheduleOwnerHeader ? scheduleOwner(principal, headers) : undefined
  if (owner === undefined) {
    return {
      scoped: scopedUserId(principal, options.adminScope, options.userIsolation),
      forScheduleOwner: false,
    }
  }
  return { scoped: options.userIsolation ? owner : null, forScheduleOwner: true }
}

/**
 * The owner the scheduler names (percent-encoded by its executor), null when it names none;
 * undefined for every other caller.
 */
function scheduleOwner(
  principal: Principal,
  headers: IncomingHttpHeaders,
): string | null | undefined {
  if (principal.kind !== 'scheduler') return undefined
  const value = headers[SCHEDULE_OWNER_HEADER]
  if (typeof value !== 'string' || value === '') return null
  try {
    return decodeURIComponent(value)
  } catch {
    throw new GatewayError('BAD_REQUEST', 'Invalid X-Schedule-Owner header', {
      reason: 'identity.schedule_owner',
    })
  }
}
