import type { RouteStage } from '../../http/stage.js'
import type { HandlerCheck } from '../../policy/catalogue/route-facts.js'
import { checkDraftPreview } from './draft-preview-check.js'
import { HandlerContext, type HandlerChecksDeps } from './handler-context.js'
import { checkOwnership } from './ownership-check.js'
import { checkReferences } from './references-check.js'
import { checkScheduleTarget } from './schedule-target-check.js'
import { checkStampedRun } from './stamped-run-check.js'

export type { HandlerChecksDeps } from './handler-context.js'

const STAGE_CHECKS: ReadonlySet<HandlerCheck['kind']> = new Set([
  'ownership',
  'schedule-target',
  'draft-preview',
  'component-references',
])

/**
 * The checks AgentOS 3.0 makes inside its route handlers from its own auth state, which an open
 * AgentOS never fills (V3-COMP-1 to V3-COMP-3, V3-SCHED-1 to V3-SCHED-3, V3-KNOW-1, V3-DRAFT-1 to
 * V3-DRAFT-3): made at the edge, for every request whose catalogue route names one, in the
 * catalogue's order, which is the handler's.
 */
export function handlerChecksStage(deps: HandlerChecksDeps): RouteStage {
  return {
    claimsRoute: (matched) => hasStageCheck(matched.route?.checks),
    async plan(request, plan) {
      const ctx = new HandlerContext(deps, request)
      let planned = plan
      for (const check of request.route.route?.checks ?? []) {
        switch (check.kind) {
          case 'ownership':
            planned = await checkOwnership(ctx, check, planned)
            break
          case 'schedule-target':
            planned = await checkScheduleTarget(ctx, check.target, planned)
            break
          case 'draft-preview':
            planned =
              check.field === 'stamp'
                ? await checkStampedRun(ctx, planned)
                : await checkDraftPreview(ctx, check.field, planned)
            break
          case 'component-references':
            planned = await checkReferences(ctx, planned)
            break
          // The authorizer's and the interface surfaces' checks.
          case 'resource-access':
          case 'admin-when-identified':
          case 'identity-required':
          case 'a2a-dispatch':
          case 'a2a-task-ownership':
            break
        }
      }
      return planned
    },
  }
}

/**
 * Whether a route names a check of this stage. Asked for every request: an indexed loop, which
 * costs nothing on the many routes that name no check (`some` with a closure was a call each).
 */
function hasStageCheck(checks: readonly HandlerCheck[] | undefined): boolean {
  if (checks === undefined) return false
  for (let index = 0; index < checks.length; index++) {
    if (STAGE_CHECKS.has((checks[index] as HandlerCheck).kind)) return true
  }
  return false
}
