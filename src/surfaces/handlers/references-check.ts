import { GatewayError } from '../../errors.js'
import type { ForwardPlan } from '../../upstream/forward-plan.js'
import { isJsonObject } from '../common/json.js'
import { referencedComponents } from './component-ids.js'
import type { HandlerContext } from './handler-context.js'
import { listedFor, OWNED_ROWS } from './owned-rows.js'

/**
 * V3-COMP-2: a scoped caller's config may name only components it can see (its own, shared ones
 * and ids no component has); the first other one is `Component <id> not found`.
 */
export async function checkReferences(
  ctx: HandlerContext,
  plan: ForwardPlan,
): Promise<ForwardPlan> {
  const scoped = ctx.scoped
  if (scoped === null) return plan
  const read = await ctx.json(plan)
  const body = read.value
  const refs = referencedComponents(isJsonObject(body) ? body['config'] : undefined)
  if (refs.length === 0) return read.plan
  const rows = OWNED_ROWS.component
  const owners = await ctx.ownersOf('component', refs)
  const hidden = refs.find((ref) => !listedFor(rows, owners, ref, scoped))
  if (hidden !== undefined) {
    throw new GatewayError('NOT_FOUND', rows.notFound(hidden), {
      reason: 'handlers.hidden_reference',
    })
  }
  return read.plan
}
