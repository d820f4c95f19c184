import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import type { ForwardPlan } from '../../upstream/forward-plan.js'
import { isJsonObject } from '../common/json.js'
import { lookupFailed } from '../common/upstream-lookup.js'
import { previewSubject, requireDraftPreview } from './draft-preview-check.js'
import { requestedVersions, VERSION_STAMP } from './draft-preview.js'
import type { HandlerContext } from './handler-context.js'
import { screenForm } from './planned-form.js'

const SESSION_FIELDS: ReadonlySet<string> = new Set(['session_id'])

/**
 * V3-DRAFT-3G: AgentOS 3.0's continue routes resolve the component again at the version stamped on
 * the run (`agno_component_version` in its metadata) and first re-check that version as a run start
 * does. For a caller that is not privileged, the run each `session_id` of the form names is read
 * from the upstream; a stamp naming a draft the caller may not preview is the family's
 * `<Kind> not found`. A form without a session is forwarded: AgentOS reads the run by its session
 * and, with none, finds no run to continue.
 */
export async function checkStampedRun(
  ctx: HandlerContext,
  plan: ForwardPlan,
): Promise<ForwardPlan> {
  const subject = previewSubject(ctx)
  const resource = ctx.request.route.route?.resource
  if (subject === undefined || resource === undefined) return plan
  const runId = ctx.segment(resource.idIndex + 2)
  await screenForm(ctx.request.body, {
    names: SESSION_FIELDS,
    async screen(_name, sessionId) {
      if (sessionId === '') return sessionId
      const stamped = await stampedVersions(ctx, subject.family, subject.id, runId, sessionId)
      for (const version of stamped) await requireDraftPreview(ctx, subject, version)
      return sessionId
    },
  })
  return plan
}

/** The versions stamped on the run, as the open upstream answers it; none when it has no such run. */
async function stampedVersions(
  ctx: HandlerContext,
  family: ResourceFamily,
  id: string,
  runId: string,
  sessionId: string,
): Promise<string[]> {
  const query = new URLSearchParams({ session_id: sessionId }).toString()
  const answer = await ctx.deps.lookup(
    `/${family}/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}?${query}`,
  )
  if (answer.status === 404) return []
  if (answer.status !== 200 || !isJsonObject(answer.value))
    throw lookupFailed('handlers.run_lookup')
  const metadata = answer.value['metadata']
  if (!isJsonObject(metadata)) return []
  const stamp = metadata[VERSION_STAMP]
  if (typeof stamp === 'number') return Number.isInteger(stamp) ? [String(stamp)] : []
  return requestedVersions([stamp])
}
