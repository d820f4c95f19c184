import { isJsonObject } from '../common/json.js'
import { lookupFailed } from '../common/upstream-lookup.js'
import type { HandlerContext } from './handler-context.js'
import type { OwnedRows } from './owned-rows.js'

/**
 * One row as the open upstream answers it (archived ones too when asked): undefined when it has
 * none; any other failure is refused (fail closed).
 */
export async function lookupRow(
  ctx: HandlerContext,
  rows: OwnedRows,
  id: string,
  includeArchived = false,
): Promise<Record<string, unknown> | undefined> {
  const query = includeArchived ? '?include_deleted=true' : ''
  const answer = await ctx.deps.lookup(`${rows.base}/${encodeURIComponent(id)}${query}`)
  if (answer.status === 404) return undefined
  if (answer.status !== 200 || !isJsonObject(answer.value))
    throw lookupFailed('handlers.row_lookup')
  return answer.value
}
