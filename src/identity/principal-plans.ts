import { interfaceUserId, type Principal } from '../principal.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'
import type { CredentialAdjustments } from './credential-handling.js'
import type { FieldPin } from './field-pin.js'
import { identityHeaders } from './identity-headers.js'
import { queryPinsFor } from './route-pins.js'
import { rewriteFieldList, type FieldListRewrite } from './url-encoded-fields.js'

const NOTHING_OBSERVED: readonly string[] = []

/**
 * What the requests of one principal share, built on its first request instead of on every one:
 * its headers plans (one per variant of credential handling), its query pins, the query a request
 * without one is sent with, and the plans that carry that query. Principals are immutable and
 * cached by the verifiers, so the same object comes back request after request.
 */
export class PrincipalPlans {
  readonly #principal: Principal
  readonly #headers: (ForwardPlan | undefined)[] = []
  // The query pins of the last request's inputs. They change only for the scheduler naming
  // another owner, or between a fork and any other route: then they are built again.
  #pinsBuilt = false
  #pinsScoped: string | null = null
  #pinsFork = false
  #pins: readonly FieldPin[] = []
  #emptyQuery: FieldListRewrite | undefined
  #emptyQueryPlans: (ForwardPlan | undefined)[] = []

  constructor(principal: Principal) {
    this.#principal = principal
  }

  /** The plan that only sets the principal's headers, for this credential handling. */
  headersOnly(credentials: CredentialAdjustments): ForwardPlan {
    return (this.#headers[credentials.variant] ??= headersOnly(this.#principal, credentials))
  }

  /** The query pins (`queryPinsFor`) for a caller scoped to `scoped`, on a fork or not. */
  queryPins(fork: boolean, scoped: string | null): readonly FieldPin[] {
    if (!this.#pinsBuilt || scoped !== this.#pinsScoped || fork !== this.#pinsFork) {
      const principal = this.#principal
      this.#pins = queryPinsFor(fork, principal.userId, scoped, interfaceUserId(principal))
      this.#pinsBuilt = true
      this.#pinsScoped = scoped
      this.#pinsFork = fork
      this.#emptyQuery = undefined
      this.#emptyQueryPlans = []
    }
    return this.#pins
  }

  /** The last `queryPins` applied to a request without a query (which observes nothing). */
  emptyQuery(): FieldListRewrite {
    return (this.#emptyQuery ??= rewriteFieldList('', 'query', this.#pins, NOTHING_OBSERVED))
  }

  /** `headersOnly` with the query of `emptyQuery`: a pinned request that sent no query. */
  headersWithEmptyQuery(credentials: CredentialAdjustments): ForwardPlan {
    return (this.#emptyQueryPlans[credentials.variant] ??= Object.freeze({
      ...this.headersOnly(credentials),
      query: this.emptyQuery().text,
    }))
  }
}

function headersOnly(principal: Principal, credentials: CredentialAdjustments): ForwardPlan {
  const { drop, dropCookie } = credentials
  return Object.freeze({
    headers: Object.freeze({ drop, dropCookie, inject: identityHeaders(principal) }),
    query: undefined,
    rewriteResponse: undefined,
    endsWith: principal,
  })
}
