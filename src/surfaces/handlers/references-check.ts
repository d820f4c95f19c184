import { GatewayError } from '../../errors.js'
import type { ForwardPlan } from '../../upstream/forward-plan.js'
import { isJsonObject } from '../common/json.js'
import { referencedComponents } from './component-ids.js'
import type { HandlerContext } from './handler-context.js'
import { OWNED_ROWS, recordedIn, rowAccess } from './owned-rows.js'
import { lookupRow } from './row-lookup.js'

/**
 * V3-COMP-2: a scoped caller's config may name only components it can see (its own, shared ones
 * and ids no component has, such as code-defined agents); the first other one is
 * `Component <id> not found`. A component whose owner the gateway never recorded is anyone's, so
 * it counts as another user's (V3-OWN-1G); whether an unrecorded id names a component at all is
 * asked of the upstream.
 */
export async function checkReferences(
  ctx: HandlerContext,
  plan: ForwardPlan,
): Promise<ForwardPlan> {
  const scoped = ctx.scoped
  if (scoped === null) return plan
  const body = await ctx.json()
  const refs = referencedComponents(isJsonObject(body) ? body['config'] : undefined)
  if (refs.length === 0) return plan
  const rows = OWNED_ROWS.component
  const owners = await ctx.ownersOf('component', refs)
  for (const ref of refs) {
    const owner = recordedIn(owners, ref)
    const hidden = owner.known
      ? rowAccess(rows, owner, scoped) === 'hidden'
      : (await lookupRow(ctx, rows, ref)) !== undefined
    if (hidden) {
      throw new GatewayError('NOT_FOUND', rows.notFound(ref), {
        reason: 'handlers.hidden_reference',
      })
    }
  }
  return plan
}
