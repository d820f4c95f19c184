import type { WebSocket } from 'ws'
import type { Principal } from '../../principal.js'
import type { ConnectionWatch } from '../../http/connection-watch.js'
import type { Exchange, ExchangeRequest } from '../../http/exchange.js'
import type { LocalEndpoint } from '../../http/upgrade.js'
import { BEARER_SUBPROTOCOL } from '../../http/subprotocol-credential.js'
import type { AcceptPort } from '../../http/websocket-acceptor.js'
import type { Logger } from '../../logger.js'
import { GatewayError } from '../../errors.js'
import type { UpstreamWebSockets } from '../../upstream/upstream-websocket.js'
import type { WorkflowAuthenticator } from './authenticator.js'
import type { GateSettings } from './gates.js'
import { WorkflowSession } from './session.js'

export interface WorkflowEndpointDeps {
  /** Completes the client's handshake (and tracks the connection for idleness and shutdown). */
  readonly accept: AcceptPort
  readonly authenticator: WorkflowAuthenticator
  /** The credential step before the handshake, the plan step when the upstream is opened. */
  readonly exchange: Exchange
  readonly upstream: UpstreamWebSockets
  readonly gates: GateSettings
  readonly requiresAuth: boolean
  readonly watch: ConnectionWatch
  readonly maxMessageBytes: number
  readonly maxJsonDepth: number
  readonly authTimeoutMs: number
  readonly logger: Logger
}

/**
 * `/workflows/ws`, terminated here (WS-1). As in AgentOS the upgrade itself is never
 * refused for want of a credential; one that comes with it (header, cookie, `bearer`
 * subprotocol) is verified at once, as if sent in an `authenticate` frame.
 */
export function workflowEndpoint(deps: WorkflowEndpointDeps): LocalEndpoint {
  return (req, socket, head, request, observation) => {
    const inbound = request.inbound
    // A repeated credential header, cookie or `bearer` subprotocol is refused here (400), as on
    // every route.
    const credential = deps.exchange.credential(inbound, deps.exchange.offered(inbound))
    const protocol = credential?.source === 'subprotocol' ? BEARER_SUBPROTOCOL : undefined
    observation.accepted()
    deps.accept.accept(req, socket, head, protocol, (client) => {
      const session = new WorkflowSession(client, inbound, {
        authenticator: deps.authenticator,
        gates: deps.gates,
        requiresAuth: deps.requiresAuth,
        watch: deps.watch,
        openUpstream: (principal) => openUpstream(deps, request, principal),
        maxMessageBytes: deps.maxMessageBytes,
        maxJsonDepth: deps.maxJsonDepth,
        authTimeoutMs: deps.authTimeoutMs,
        logger: deps.logger,
      })
      session.start(credential)
    })
  }
}

async function openUpstream(
  deps: WorkflowEndpointDeps,
  request: ExchangeRequest,
  principal: Principal,
): Promise<WebSocket> {
  const plan = await deps.exchange.plan(request, {
    outcome: 'allowed',
    principal,
    authorization: undefined,
  })
  const outcome = await deps.upstream.open(request.inbound, plan, [])
  if (outcome.kind === 'open') return outcome.socket
  throw new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream refused the WebSocket', {
    reason: 'upstream.websocket_refused',
  })
}
