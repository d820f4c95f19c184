import type { Credential } from '../../auth/credential.js'
import type { InboundRequest } from '../../inbound/inbound-request.js'
import type { AuthPipeline } from '../../auth/pipeline.js'
import type { Principal } from '../../principal.js'
import type { Logger } from '../../logger.js'
import { authenticatedFrames, authErrorFrame, type Frame } from './frames.js'

export type TokenOutcome =
  | { readonly ok: true; readonly principal: Principal; readonly frames: Frame[] }
  | { readonly ok: false; readonly frame: Frame }

export interface WorkflowAuthDeps {
  readonly pipeline: AuthPipeline
  readonly jwtConfigured: boolean
  readonly logger: Logger
}

/**
 * Verifies a token given on the workflow WebSocket with the same core as REST, counted and
 * traced as REST's are; the auth-mode policy holds AgentOS's two differences (an open instance
 * reports a service-account token it cannot verify; the scheduler token is no WebSocket
 * credential). A refusal is an `auth_error` frame.
 */
export class WorkflowAuthenticator {
  readonly #deps: WorkflowAuthDeps

  constructor(deps: WorkflowAuthDeps) {
    this.#deps = deps
  }

  async authenticate(credential: Credential, inbound: InboundRequest): Promise<TokenOutcome> {
    const outcome = await this.#deps.pipeline.authenticate(inbound, credential, 'workflow_socket')
    if (outcome.ok) {
      return {
        ok: true,
        principal: outcome.principal,
        frames: authenticatedFrames(outcome.principal),
      }
    }
    const error = outcome.refusal
    if (error.code === 'INTERNAL') {
      this.#deps.logger.error({ err: error.cause }, 'workflow WebSocket authentication failed')
    }
    return { ok: false, frame: authErrorFrame(error, this.#deps.jwtConfigured) }
  }
}
