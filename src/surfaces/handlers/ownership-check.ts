import { SCHEDULER_USER_ID } from '../../auth/scheduler-token-verifier.js'
import { GatewayError } from '../../errors.js'
import { pinJsonMembers } from '../../identity/json-members.js'
import type { OwnedResource, OwnershipVerb } from '../../policy/catalogue/route-facts.js'
import type { ReasonInFor } from '../../reasons.js'
import {
  thenRewriteResponse,
  type ForwardPlan,
  type ResponseRewrite,
} from '../../upstream/forward-plan.js'
import type { BufferedResponse } from '../../upstream/upstream-client.js'
import { isJsonObject, parseJson } from '../common/json.js'
import { ownerScopedComponentId } from './component-ids.js'
import type { HandlerContext } from './handler-context.js'
import { ownedListing } from './owned-listing.js'
import { creatorOf, OWNED_ROWS, rowAccess } from './owned-rows.js'
import { lookupRow } from './row-lookup.js'

export const SCHEDULER_MAY_NOT_OWN = 'The scheduler executor may not own a schedule'

/** One ownership check of the catalogue. */
export interface OwnershipCheck {
  readonly resource: OwnedResource
  readonly verb: OwnershipVerb
  /** The 404 text for a row the caller may not see, when the route's differs from the resource's. */
  readonly notFound?: string
}

/**
 * Ownership of the rows AgentOS 3.0 owns through its own auth state (V3-COMP-1 to V3-COMP-3,
 * V3-SCHED-2, V3-SCHED-3, V3-KNOW-1), from the owners the gateway records (OWN-1): a scoped
 * caller's reads and writes are checked before the request goes on, its listings filtered after;
 * every creation records its owner, every deletion of a schedule or content drops it.
 */
export async function checkOwnership(
  ctx: HandlerContext,
  check: OwnershipCheck,
  plan: ForwardPlan,
): Promise<ForwardPlan> {
  const { resource, verb } = check
  const rows = OWNED_ROWS[resource]
  const scoped = ctx.scoped
  if (scoped !== null) ctx.requireStore()
  switch (verb) {
    case 'create':
      return create(ctx, resource, plan)
    case 'list':
      // A HEAD answer has no rows to filter.
      if (scoped === null || ctx.request.inbound.method === 'HEAD') return plan
      return thenRewriteResponse(
        plan,
        ownedListing({
          rows,
          scoped,
          query: plan.query ?? ctx.request.inbound.query,
          lookup: ctx.deps.lookup,
          ownersOf: (ids) => ctx.ownersOf(resource, ids),
        }),
      )
    case 'delete-all':
      // It would delete rows the caller may not delete: refused as a shared row's delete is.
      if (scoped !== null) throw refusal(rows.sharedRefusal('delete') ?? '', 'delete_all')
      return plan
    case 'read':
    case 'modify':
    case 'delete':
    case 'restore': {
      const id = ctx.segment(rows.idSegment)
      if (scoped !== null) await guardRow(ctx, check, id, scoped)
      if (verb !== 'delete' || !rows.forgottenOnDelete) return plan
      return thenRewriteResponse(
        plan,
        onSuccess(() => ctx.forget(resource, id)),
      )
    }
  }
}

/** A scoped caller's access to one row: another owner's is not found, a shared one read-only. */
async function guardRow(
  ctx: HandlerContext,
  check: OwnershipCheck,
  id: string,
  scoped: string,
): Promise<void> {
  const { resource, verb } = check
  const rows = OWNED_ROWS[resource]
  const access = rowAccess(rows, await ctx.ownerOf(resource, id), scoped)
  if (access === 'hidden') {
    throw new GatewayError('NOT_FOUND', check.notFound ?? rows.notFound(id), {
      reason: 'handlers.not_visible',
    })
  }
  if (access === 'own' || verb === 'read') return
  // A shared row: refused only if it exists (else the upstream's 404 is the answer); a restore
  // only while it is archived (else the upstream's 409).
  const row = await lookupRow(ctx, rows, id, verb === 'restore')
  if (row === undefined || (verb === 'restore' && !archived(row))) return
  const text = rows.sharedRefusal(verb === 'delete' ? 'delete' : 'modify') ?? rows.notFound(id)
  throw refusal(text, 'shared_row')
}

function archived(row: Record<string, unknown>): boolean {
  const deletedAt = row['deleted_at']
  return deletedAt !== undefined && deletedAt !== null
}

/**
 * A creation: the owner AgentOS would stamp (V3-COMP-3, V3-SCHED-2: the scoped id, else the
 * caller's own) is recorded from the id in the upstream's 2xx answer; a scoped caller's
 * component named by its `name` only gets AgentOS's owner-scoped id.
 */
async function create(
  ctx: HandlerContext,
  resource: OwnedResource,
  plan: ForwardPlan,
): Promise<ForwardPlan> {
  const creator = creatorOf(ctx.scoped, ctx.principal.userId)
  if (resource === 'schedule' && creator === SCHEDULER_USER_ID) {
    throw refusal(SCHEDULER_MAY_NOT_OWN, 'scheduler_owner')
  }
  const scoped = ctx.scoped
  if (resource === 'component' && scoped !== null) await ownerScopedId(ctx, scoped)
  if (ctx.deps.owners === undefined) return plan
  const rows = OWNED_ROWS[resource]
  return thenRewriteResponse(
    plan,
    onSuccess(async (response) => {
      const answer = parseJson(response.body)?.value
      const id = isJsonObject(answer) ? answer[rows.idKey] : undefined
      if (typeof id !== 'string') {
        ctx.deps.logger.warn(
          { resource },
          'created row has no id in the answer: owner not recorded',
        )
        return
      }
      const owner = await ctx.record(resource, id, creator)
      if (owner !== creator) {
        ctx.deps.logger.warn({ resource, id }, 'created row already had an owner on record')
      }
    }),
  )
}

/** Sets `component_id` when the body names none (absent or null) and has a name. */
async function ownerScopedId(ctx: HandlerContext, scoped: string): Promise<void> {
  const body = await ctx.json()
  if (!isJsonObject(body) || typeof body['name'] !== 'string') return
  const named = body['component_id']
  if (named !== undefined && named !== null) return
  const id = ownerScopedComponentId(body['name'], scoped)
  const clientBody = ctx.request.body
  const raw = await clientBody.bytes()
  const pinned = pinJsonMembers(raw, [{ name: 'component_id', value: id, always: true }], [])
  if (pinned.kind === 'object') clientBody.setBytes(pinned.body)
}

/** Runs `action` after a 2xx answer, before the client gets it. */
function onSuccess(action: (response: BufferedResponse) => Promise<void>): ResponseRewrite {
  return async (response) => {
    if (response.status >= 200 && response.status < 300) await action(response)
    return response
  }
}

function refusal(detail: string, reason: ReasonInFor<'handlers', 'ACCESS_DENIED'>): GatewayError {
  return new GatewayError('ACCESS_DENIED', detail, { reason: `handlers.${reason}` })
}
