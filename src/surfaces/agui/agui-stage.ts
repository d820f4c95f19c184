import { interfaceUserId } from '../../principal.js'
import type { ForwardStage, StageRequest } from '../../http/stage.js'
import type { ForwardPlan } from '../../upstream/forward-plan.js'
import { pinClientUserId } from '../common/client-user-id.js'
import { isJsonObject } from '../common/json.js'
import { requireJson } from '../common/request-json.js'

// AG-UI's RunAgentInput is read by alias or by field name.
const FORWARDED_PROPS = ['forwarded_props', 'forwardedProps'] as const

/**
 * AG-UI's `POST {prefix}/agui` (AGUI-1, ISO-2): the run's user is
 * `forwarded_props.user_id`, which becomes the caller's own when it has one (set even when
 * absent, as the open upstream has no other source) and is refused for anyone else when it
 * claims a reserved principal. The scope (agents:run or teams:run) is an interface mapping.
 */
export function aguiStage(): ForwardStage {
  return { plan: (request, plan) => pinForwardedUserId(request, plan) }
}

async function pinForwardedUserId(request: StageRequest, plan: ForwardPlan): Promise<ForwardPlan> {
  const body = await requireJson(request.body)
  if (!isJsonObject(body)) return plan
  const principal = request.principal
  const userId = interfaceUserId(principal)
  const present = FORWARDED_PROPS.filter((key) => key in body)
  let changed = false
  for (const key of present) {
    const props = body[key]
    if (isJsonObject(props)) {
      changed = pinClientUserId(props, 'user_id', principal, true) || changed
    } else if (userId !== null) {
      body[key] = { user_id: userId }
      changed = true
    }
  }
  if (present.length === 0 && userId !== null) {
    body['forwardedProps'] = { user_id: userId }
    changed = true
  }
  if (changed) request.body.setJson(body)
  return plan
}
