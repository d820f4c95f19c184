import { isAdmin, type Principal } from '../../principal.js'
import { enforcementFor } from '../../policy/authorizer.js'
import type { Grants } from '../../policy/grants.js'
import { errorFrame, type Frame } from './frames.js'
import type { JsonObject } from '../common/json.js'

export const RELAYED_ACTIONS = ['start-workflow', 'continue-workflow', 'reconnect'] as const
export type RelayedAction = (typeof RELAYED_ACTIONS)[number]

export function isRelayedAction(action: unknown): action is RelayedAction {
  return RELAYED_ACTIONS.some((relayed) => relayed === action)
}

export interface GateSettings {
  /** A JWT source is configured: every identity is scope-checked, whatever `authorization` says. */
  readonly jwtConfigured: boolean
  /** What scopes grant, under the configured admin scope. */
  readonly grants: Grants
  readonly userIsolation: boolean
}

export type GateOutcome =
  | { readonly kind: 'relay'; readonly message: JsonObject; readonly changed: boolean }
  | { readonly kind: 'refuse'; readonly frame: Frame }

const DENIALS: Readonly<Record<RelayedAction, string>> = {
  'start-workflow': 'Insufficient permissions to run this workflow',
  'continue-workflow': 'Insufficient permissions to continue this workflow',
  reconnect: 'Insufficient permissions to reconnect to this workflow',
}
export const WORKFLOW_ID_REQUIRED = 'workflow_id is required to reconnect to a workflow run'

/**
 * AgentOS's checks on the relayed actions (WS-1): `workflows:run` on the message's
 * `workflow_id` (a global grant when it names none) for JWT deployments and service-account
 * identities; for reconnect, admins skip the check and, under user isolation, a workflow_id is
 * required. Then `user_id` is the principal's: overwritten for non-admins, a default for admins.
 */
export function gateWorkflowAction(
  action: RelayedAction,
  message: JsonObject,
  principal: Principal,
  settings: GateSettings,
): GateOutcome {
  // The socket checks scopes for every JWT deployment, whatever `authorization` says.
  const enforced = enforcementFor(principal, settings.jwtConfigured) !== 'none'
  const admin = isAdmin(principal, settings.grants.adminScope)
  const workflowId = message['workflow_id']
  const id = typeof workflowId === 'string' && workflowId !== '' ? workflowId : undefined
  const checked = enforced && (action !== 'reconnect' || !admin)
  if (checked && action === 'reconnect' && settings.userIsolation && !workflowId) {
    return { kind: 'refuse', frame: errorFrame(WORKFLOW_ID_REQUIRED) }
  }
  const scopes = principal.scopes ?? []
  const context = { family: 'workflows', id }
  if (checked && !settings.grants.satisfies(scopes, 'workflows:run', context)) {
    return { kind: 'refuse', frame: errorFrame(DENIALS[action]) }
  }
  return pinUserId(message, principal.userId, admin, settings.userIsolation)
}

function pinUserId(
  message: JsonObject,
  userId: string | null,
  admin: boolean,
  userIsolation: boolean,
): GateOutcome {
  if (admin) {
    if (userId === null || userId === '' || 'user_id' in message) return relay(message, false)
    return relay({ ...message, user_id: userId }, true)
  }
  // Under isolation the client's value is never an identity, even when the token has none.
  if ((userId === null || userId === '') && !userIsolation) return relay(message, false)
  if (message['user_id'] === userId) return relay(message, false)
  return relay({ ...message, user_id: userId }, true)
}

function relay(message: JsonObject, changed: boolean): GateOutcome {
  return { kind: 'relay', message, changed }
}
