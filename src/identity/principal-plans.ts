import { interfaceUserId, type Principal } from '../principal.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'
import { CREDENTIAL_VARIANTS, type CredentialAdjustments } from './credential-handling.js'
import type { FieldPin } from './field-pin.js'
import { identityHeaders } from './identity-headers.js'
import { queryPinsFor } from './route-pins.js'
import { rewriteFieldList } from './url-encoded-fields.js'

const NOTHING_OBSERVED: readonly string[] = []

/**
 * What the requests of one principal share, built on its first request instead of on every one:
 * its headers plans (one per variant of credential handling) and, for a request without a query,
 * the query it is sent with and the plans carrying it. Principals are immutable and cached by the
 * verifiers, so the same object comes back request after request. Kept small: a table of these
 * is kept for thousands of principals.
 */
export class PrincipalPlans {
  readonly #principal: Principal
  // By variant of credential handling: the headers plan, then the one with the empty query.
  // One array of fixed length, allocated once: most principals fill one or two of its slots.
  readonly #plans: (ForwardPlan | undefined)[] = new Array<ForwardPlan | undefined>(
    2 * CREDENTIAL_VARIANTS,
  )
  // The pinned empty query of the last inputs it was built for. They change only for the
  // scheduler naming another owner, or between a fork and any other route: then it is built again.
  #emptyQueryScoped: string | null | undefined = undefined
  #emptyQueryFork = false
  #emptyQuery: string | undefined

  constructor(principal: Principal) {
    this.#principal = principal
  }

  /** The plan that only sets the principal's headers, for this credential handling. */
  headersOnly(credentials: CredentialAdjustments): ForwardPlan {
    return (this.#plans[credentials.variant] ??= headersOnly(this.#principal, credentials))
  }

  /** The query pins (`queryPinsFor`) of a caller scoped to `scoped`, on a fork or not. */
  queryPins(fork: boolean, scoped: string | null): readonly FieldPin[] {
    const principal = this.#principal
    return queryPinsFor(fork, principal.userId, scoped, interfaceUserId(principal))
  }

  /**
   * The query a request without one is sent with (its pins alone; an empty query observes
   * nothing), undefined when nothing is pinned.
   */
  emptyQuery(fork: boolean, scoped: string | null): string | undefined {
    if (scoped !== this.#emptyQueryScoped || fork !== this.#emptyQueryFork) {
      const rewrite = rewriteFieldList('', 'query', this.queryPins(fork, scoped), NOTHING_OBSERVED)
      this.#emptyQuery = rewrite.changed ? rewrite.text : undefined
      this.#emptyQueryScoped = scoped
      this.#emptyQueryFork = fork
      this.#plans.fill(undefined, CREDENTIAL_VARIANTS)
    }
    return this.#emptyQuery
  }

  /**
   * `headersOnly` with `query`: shared when it is the last `emptyQuery` (a pinned request that
   * sent none), made for this request otherwise. Compared by value: between a request's
   * `emptyQuery` and its plan (a body read in between) another request may have changed it.
   */
  headersWithQuery(credentials: CredentialAdjustments, query: string): ForwardPlan {
    if (query !== this.#emptyQuery) return { ...this.headersOnly(credentials), query }
    return (this.#plans[CREDENTIAL_VARIANTS + credentials.variant] ??= Object.freeze({
      ...this.headersOnly(credentials),
      query,
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
