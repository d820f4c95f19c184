import { interfaceUserId, scopedUserId, type Principal } from '../../principal.js'
import { GatewayError } from '../../errors.js'
import { encodeIdHeaderValue } from '../../identity/header-values.js'
import { USER_ID_HEADER } from '../../identity/identity-headers.js'
import type { ForwardStage, StageRequest } from '../../http/stage.js'
import { withInjectedValue, type ForwardPlan } from '../../upstream/forward-plan.js'
import type { Grants } from '../../policy/grants.js'
import { SINGULAR } from '../../policy/catalogue/route-facts.js'
import type { ComponentCatalog } from './component-catalog.js'
import { refuseForeignUserIds } from './nested-user-ids.js'
import { verifyTaskOwnership } from './task-ownership.js'
import { pinClientUserId } from '../common/client-user-id.js'
import { isJsonObject, objectMember } from '../common/json.js'
import { requireJson } from '../common/request-json.js'
import type { UpstreamLookup } from '../common/upstream-lookup.js'
import { sameFieldName } from '../../inbound/field-name.js'

export interface A2aStageDeps {
  /** What scopes grant, under the configured admin scope. */
  readonly grants: Grants
  readonly userIsolation: boolean
  readonly catalog: ComponentCatalog
  readonly lookup: UpstreamLookup
}

/**
 * The A2A interface beyond its scope mappings (A2A-5, ISO-2), on the routes the catalogue gives
 * it: the message metadata's `userId` is the caller's (or refused when an anonymous caller claims
 * a reserved principal; `X-User-ID` is handled with every request), the deprecated dispatch needs
 * the run scope of the family `X-Agent-ID` resolves to, and a self-scoped caller's `tasks:get`
 * and `tasks:cancel` must name a run in a session of its own.
 */
export function a2aStage(deps: A2aStageDeps): ForwardStage {
  return { plan: (request, plan) => planA2a(request, plan, deps) }
}

async function planA2a(
  request: StageRequest,
  planned: ForwardPlan,
  deps: A2aStageDeps,
): Promise<ForwardPlan> {
  const principal = request.principal
  const plan = aliasUserIdHeader(planned, principal)
  const body = await requireJson(request.body)
  const params = isJsonObject(body) ? objectMember(body, 'params') : undefined
  const metadata = objectMember(objectMember(params, 'message'), 'metadata')
  if (metadata !== undefined && pinClientUserId(metadata, 'userId', principal, false))
    request.body.setJson(body)
  const scoped = scopedUserId(principal, deps.grants.adminScope, deps.userIsolation)
  if (scoped !== null) {
    const own = new Set([scoped, interfaceUserId(principal) ?? scoped])
    for (const held of [metadata, objectMember(params, 'metadata')])
      if (held !== undefined) refuseForeignUserIds(held, own)
  }
  const route = request.route.route
  for (const check of route?.checks ?? []) {
    if (check.kind === 'a2a-dispatch') await checkDispatch(request, deps, principal)
    if (check.kind !== 'a2a-task-ownership' || route?.resource === undefined) continue
    if (scoped === null) continue
    const target = {
      family: route.resource.family,
      id: request.route.segments[route.resource.idIndex] ?? '',
    }
    // A2A runs of a service account are stored under its alias; REST ones under `sa:<name>`.
    const owners = [...new Set([interfaceUserId(principal) ?? scoped, scoped])]
    await verifyTaskOwnership(deps.lookup, target, params, owners, check.operation)
  }
  return plan
}

/**
 * AgentOS's A2A routes read `X-User-ID` first and refuse a reserved principal from a caller they
 * see as anonymous (every caller, upstream of an open AgentOS): a service account or the
 * scheduler is named there by its interface alias (A2A-2).
 */
function aliasUserIdHeader(plan: ForwardPlan, principal: Principal): ForwardPlan {
  const alias = interfaceUserId(principal)
  if (alias === principal.userId || alias === null) return plan
  return withInjectedValue(plan, USER_ID_HEADER, encodeIdHeaderValue(alias))
}

async function checkDispatch(
  request: StageRequest,
  deps: A2aStageDeps,
  principal: Principal,
): Promise<void> {
  if (!principal.authorizationEnabled) return
  const agentId = singleHeader(request.inbound.rawHeaders, 'x-agent-id')
  // A missing id or an unknown component is the upstream's 400 or 404.
  if (agentId === undefined || agentId === '') return
  const family = await deps.catalog.familyOf(agentId)
  if (family === undefined) return
  const context = { family, id: agentId }
  if (!deps.grants.satisfies(principal.scopes ?? [], `${family}:run`, context)) {
    throw new GatewayError(
      'ACCESS_DENIED',
      `Insufficient permissions to run this ${SINGULAR[family]}`,
      {
        reason: 'rbac.a2a_dispatch',
      },
    )
  }
}

/** One header's value; given twice it is refused, as the copies could be read differently. */
function singleHeader(rawHeaders: readonly string[], name: string): string | undefined {
  let found: string | undefined
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (!sameFieldName(rawHeaders[index] as string, name)) continue
    if (found !== undefined) {
      throw new GatewayError('BAD_REQUEST', `Multiple ${name} headers`, {
        reason: 'surfaces.duplicate_header',
      })
    }
    found = (rawHeaders[index + 1] ?? '').trim()
  }
  return found
}
