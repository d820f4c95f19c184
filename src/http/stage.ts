import type { Readable } from 'node:stream'
import type { Principal } from '../principal.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'

/** What a forward stage sees of a request: decided on, authenticated, authorized. */
export interface StageRequest {
  readonly inbound: InboundRequest
  readonly principal: Principal
  /** The client's body; a stage reads it only when no earlier stage planned a body. */
  readonly body: Readable
}

/** An answer a stage gives itself instead of forwarding the request. */
export interface LocalAnswer {
  readonly status: number
  /** JSON (an object), text, or null for none. */
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** The access log's reason. */
  readonly reason?: string
}

/**
 * A step after identity enforcement that may change what reaches the upstream (the MCP, A2A and
 * AG-UI interfaces, discovery documents): it receives the plan so far and returns a new one, or
 * answers the request itself.
 */
export interface ForwardStage {
  /** A cheap test on the method and canonical path: `plan` runs only for requests it claims. */
  claims(method: string, path: string): boolean
  plan(request: StageRequest, plan: ForwardPlan): Promise<ForwardPlan | LocalAnswer>
}

export function isLocalAnswer(outcome: ForwardPlan | LocalAnswer): outcome is LocalAnswer {
  return (outcome as Partial<LocalAnswer>).status !== undefined
}
