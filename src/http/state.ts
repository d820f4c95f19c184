import type { ParameterizedContext } from 'koa'
import {
  admitted,
  type AllowedDecision,
  type Decision,
  type PublicDecision,
} from '../auth/decision.js'
import type { Reason } from '../reasons.js'
import type { RequestClient } from '../inbound/inbound-request.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'
import type { GatewayError } from '../errors.js'
import type { LocalAnswer } from './stage.js'
import type { StreamOutcome } from '../upstream/streaming-response-handler.js'
import type { HttpExchangeRequest } from './exchange.js'

/**
 * What the middlewares establish, each field once, in the order they run. Every field is absent
 * until its writer ran: the access log and the error handler see requests refused before any of
 * them (a path the inbound adapter refused, a refused credential).
 */
export interface GatewayState {
  /** Who asked (request-context, first): for X-Request-Id and the access log. */
  client?: RequestClient
  /** The request as read once by the inbound adapter, and its catalogue match (request-context). */
  request?: HttpExchangeRequest
  /** The decision core's answer (authenticate); a denied one is also thrown. */
  decision?: Decision
  /** The label of a route the gateway answers itself (the service-account API). */
  localRoute?: string
  /** The error the response was made from (handle-errors). */
  refusal?: GatewayError
  /** The answer a forward stage gave itself instead of forwarding (plan-request). */
  answered?: LocalAnswer
  /** What reaches the upstream: the last stage's forward plan (plan-request, before forwarding). */
  plan?: ForwardPlan
  /** How streaming the upstream's answer ended (forward). */
  streamed?: StreamOutcome
}

/**
 * The reason a request is logged with, from what ended it: the error its response was made from,
 * the reason of a stage's own answer, or a stream the client left or the upstream broke.
 */
export function reasonOf(state: GatewayState): Reason | undefined {
  if (state.refusal !== undefined) return state.refusal.reason
  if (state.answered !== undefined) return state.answered.reason
  if (state.streamed === 'client_gone') return 'client.gone'
  if (state.streamed === 'upstream_failed') return 'upstream.failed_mid_stream'
  return undefined
}

export type GatewayContext = ParameterizedContext<GatewayState>

/** A field a middleware relies on an earlier one to have set: missing is a wiring fault (500). */
function established<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not established at this stage`)
  return value
}

/** The request, for every stage after request-context. */
export function requestOf(ctx: GatewayContext): HttpExchangeRequest {
  return established(ctx.state.request, 'the request')
}

/** The decision of a request let through, for every stage after authenticate. */
export function admittedOf(ctx: GatewayContext): PublicDecision | AllowedDecision {
  return admitted(established(ctx.state.decision, 'the decision'))
}

/** The forward plan, for the forwarding stage. */
export function planOf(ctx: GatewayContext): ForwardPlan {
  return established(ctx.state.plan, 'the forward plan')
}

/**
 * The bounded route label of metrics and the access log: the template of the rule that authorized
 * the request, else the route family the catalogue matched (`invalid` for a request refused
 * before it was read); the service-account API's own template.
 */
export function routeLabel(state: GatewayState): string {
  if (state.localRoute !== undefined) return state.localRoute
  const decision = state.decision
  if (decision !== undefined) return decisionRouteLabel(decision)
  return state.request?.route.familyLabel ?? 'invalid'
}

/** A decision's route label: the authorizing rule's template, else the route family. */
export function decisionRouteLabel(decision: Decision): string {
  return decision.authorization?.route?.template ?? decision.route.familyLabel
}
