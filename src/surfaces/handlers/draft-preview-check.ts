import { GatewayError } from '../../errors.js'
import { rewriteFieldList } from '../../identity/url-encoded-fields.js'
import { capitalizedSingular, type ResourceFamily } from '../../policy/catalogue/route-facts.js'
import type { RecordedOwner } from '../../service-accounts/resource-owners.js'
import type { ForwardPlan } from '../../upstream/forward-plan.js'
import { isJsonObject } from '../common/json.js'
import { lookupFailed } from '../common/upstream-lookup.js'
import {
  previewAllowed,
  previewIdentity,
  requestedVersions,
  scrubbedMetadata,
  type ConfigStage,
} from './draft-preview.js'
import type { HandlerContext } from './handler-context.js'
import { screenForm } from './planned-form.js'

const VERSION = 'version'
const METADATA = 'metadata'
const RUN_FORM_FIELDS: ReadonlySet<string> = new Set([VERSION, METADATA])
const UNKNOWN_OWNER: RecordedOwner = { known: false }

/**
 * V3-DRAFT-1 to V3-DRAFT-3 for a caller that is not privileged: a run (form `version`) or a
 * workflow read (query `version`) of a draft config runs only for the component's recorded owner,
 * else the family's `<Kind> not found`; a run's metadata loses a client-sent version stamp, which
 * the run's continuation would otherwise resolve as a preview.
 */
export async function checkDraftPreview(
  ctx: HandlerContext,
  field: 'form' | 'query',
  plan: ForwardPlan,
): Promise<ForwardPlan> {
  const subject = previewSubject(ctx)
  if (subject === undefined) return plan
  const decide = async (versions: readonly string[]): Promise<void> => {
    for (const version of versions) await requireDraftPreview(ctx, subject, version)
  }
  if (field === 'query') {
    const query = plan.query ?? ctx.request.inbound.query
    await decide(
      requestedVersions(
        rewriteFieldList(query, 'query', [], [VERSION]).observed.get(VERSION) ?? [],
      ),
    )
    return plan
  }
  await screenForm(ctx.request.body, {
    names: RUN_FORM_FIELDS,
    async screen(name, value) {
      if (name === VERSION) {
        await decide(requestedVersions([value]))
        return value
      }
      return scrubbedMetadata([value]) ?? value
    },
  })
  return plan
}

/** The component whose drafts a caller that is not privileged asks for, and that caller. */
export interface PreviewSubject {
  readonly family: ResourceFamily
  readonly id: string
  readonly actor: string | null
}

/** Undefined when the caller is privileged (AgentOS checks nothing) or the route names no component. */
export function previewSubject(ctx: HandlerContext): PreviewSubject | undefined {
  const { privileged, actor } = previewIdentity(ctx.principal, ctx.deps.grants.adminScope)
  const resource = ctx.request.route.route?.resource
  if (privileged || resource === undefined) return undefined
  return { family: resource.family, id: ctx.segment(resource.idIndex), actor }
}

/**
 * AgentOS's `allow_draft_preview` for a caller that is not privileged: a draft it may not preview is
 * the family's `<Kind> not found` (V3-DRAFT-3).
 */
export async function requireDraftPreview(
  ctx: HandlerContext,
  { family, id, actor }: PreviewSubject,
  version: string,
): Promise<void> {
  if (await allowed(ctx, id, version, actor)) return
  throw new GatewayError('NOT_FOUND', `${capitalizedSingular(family)} not found`, {
    reason: 'handlers.draft_preview',
  })
}

async function allowed(
  ctx: HandlerContext,
  id: string,
  version: string,
  actor: string | null,
): Promise<boolean> {
  const stage = await configStage(ctx, id, version)
  if (stage !== 'draft' || actor === null) return previewAllowed(stage, actor, UNKNOWN_OWNER)
  const owner = ctx.deps.owners === undefined ? UNKNOWN_OWNER : await ctx.ownerOf('component', id)
  return previewAllowed(stage, actor, owner)
}

/** The stage of a component's config version, as the open upstream answers it. */
async function configStage(ctx: HandlerContext, id: string, version: string): Promise<ConfigStage> {
  const answer = await ctx.deps.lookup(
    `/components/${encodeURIComponent(id)}/configs/${encodeURIComponent(version)}`,
  )
  if (answer.status === 404) return 'absent'
  if (answer.status !== 200 || !isJsonObject(answer.value))
    throw lookupFailed('handlers.config_lookup')
  return answer.value['stage'] === 'published' ? 'published' : 'draft'
}
