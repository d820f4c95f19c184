import { isServiceToken, type Credential } from '../../auth/credential.js'
import type { InboundRequest } from '../../inbound/inbound-request.js'
import type { AuthPipeline } from '../../auth/pipeline.js'
import type { Principal } from '../../principal.js'
import { NOT_RESPONSIBLE, type Verifier } from '../../auth/verifier.js'
import { GatewayError, toGatewayError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import { invalidTokenError } from '../../service-accounts/verification-errors.js'
import { authenticatedFrames, authErrorFrame, type Frame } from './frames.js'

export type TokenOutcome =
  | { readonly ok: true; readonly principal: Principal; readonly frames: Frame[] }
  | { readonly ok: false; readonly frame: Frame }

export interface WorkflowAuthDeps {
  readonly pipeline: AuthPipeline
  /** The service-account verifier; undefined when service accounts are off. */
  readonly serviceAccounts: Verifier | undefined
  /** No JWT source and no security key. */
  readonly open: boolean
  readonly jwtConfigured: boolean
  readonly logger: Logger
}

/**
 * Verifies a token given on the workflow WebSocket with the same core as REST. Two differences
 * are AgentOS's: an open instance reports a service-account token it cannot verify (REST ignores
 * it), and the internal scheduler token is not a WebSocket credential.
 */
export class WorkflowAuthenticator {
  readonly #deps: WorkflowAuthDeps

  constructor(deps: WorkflowAuthDeps) {
    this.#deps = deps
  }

  async authenticate(credential: Credential, inbound: InboundRequest): Promise<TokenOutcome> {
    try {
      const principal = await this.#principal(credential, inbound)
      if (principal.kind === 'scheduler') throw notAWebSocketCredential()
      return { ok: true, principal, frames: authenticatedFrames(principal) }
    } catch (thrown) {
      const error = toGatewayError(thrown)
      if (error.code === 'INTERNAL') {
        this.#deps.logger.error({ err: error.cause }, 'workflow WebSocket authentication failed')
      }
      return { ok: false, frame: authErrorFrame(error, this.#deps.jwtConfigured) }
    }
  }

  async #principal(credential: Credential, inbound: InboundRequest): Promise<Principal> {
    const { open, serviceAccounts, pipeline } = this.#deps
    if (!open || !isServiceToken(credential.token)) {
      return pipeline.authenticate(inbound, credential)
    }
    if (serviceAccounts === undefined) throw invalidTokenError('unknown')
    const principal = await serviceAccounts.verify(credential, inbound)
    if (principal === NOT_RESPONSIBLE) throw invalidTokenError('malformed')
    return principal
  }
}

function notAWebSocketCredential(): GatewayError {
  return new GatewayError('TOKEN_INVALID', 'Invalid token', { reason: 'scheduler.websocket' })
}
