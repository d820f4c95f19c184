import type { WebSocket } from 'ws'
import { extractCredential, type CredentialSettings } from '../../auth/extract-credential.js'
import type { InboundRequest } from '../../inbound/inbound-request.js'
import type { Principal } from '../../principal.js'
import type { ConnectionWatch } from '../../http/connection-watch.js'
import { BEARER_SUBPROTOCOL, subprotocolCredential } from '../../http/upgrade-gate.js'
import type { LocalEndpoint } from '../../http/upgrade.js'
import type { AcceptPort } from '../../http/websocket-acceptor.js'
import { offeredProtocols } from '../../http/websocket-handshake.js'
import type { MatchedRoute } from '../../policy/catalogue/route-catalogue.js'
import type { IdentityEnforcer } from '../../identity/identity-enforcer.js'
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
  readonly enforcer: IdentityEnforcer
  /** The route catalogue's match for the upgrade. */
  readonly match: (inbound: InboundRequest) => MatchedRoute
  readonly upstream: UpstreamWebSockets
  readonly credentials: CredentialSettings
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
  return (req, socket, head, inbound) => {
    const fromSubprotocol = subprotocolCredential(offeredProtocols(req)).credential
    // A repeated credential header or cookie is refused here (400), as on every route.
    const credential = extractCredential(inbound, deps.credentials) ?? fromSubprotocol
    const protocol = credential?.source === 'subprotocol' ? BEARER_SUBPROTOCOL : undefined
    deps.accept.accept(req, socket, head, protocol, (client) => {
      const session = new WorkflowSession(client, inbound, {
        authenticator: deps.authenticator,
        gates: deps.gates,
        requiresAuth: deps.requiresAuth,
        watch: deps.watch,
        openUpstream: (principal) => openUpstream(deps, inbound, principal),
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
  inbound: InboundRequest,
  principal: Principal,
): Promise<WebSocket> {
  const plan = await deps.enforcer.plan({
    principal,
    method: 'GET',
    path: inbound.path,
    route: deps.match(inbound),
    query: inbound.query,
    headers: inbound.headers,
  })
  const outcome = await deps.upstream.open(inbound, plan, [])
  if (outcome.kind === 'open') return outcome.socket
  throw new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream refused the WebSocket', {
    reason: 'upstream.websocket_refused',
  })
}
