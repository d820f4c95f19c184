import { GatewayError } from '../../errors.js'
import type { StageRequest } from '../../http/stage.js'
import type { Logger } from '../../logger.js'
import type { OwnedResource } from '../../policy/catalogue/route-facts.js'
import type { Grants } from '../../policy/grants.js'
import { callerScope } from '../../identity/caller-scope.js'
import type { RecordedOwner, ResourceOwners } from '../../service-accounts/resource-owners.js'
import { requireJson } from '../common/request-json.js'
import type { UpstreamLookup } from '../common/upstream-lookup.js'

export interface HandlerChecksDeps {
  /** What scopes grant, under the configured admin scope. */
  readonly grants: Grants
  readonly userIsolation: boolean
  /** The line scopes the scheduler to the owner its `X-Schedule-Owner` names (3.0). */
  readonly scheduleOwnerHeader: boolean
  /** The owner records; undefined when service accounts (and with them the store) are off. */
  readonly owners: ResourceOwners | undefined
  readonly lookup: UpstreamLookup
  readonly logger: Logger
  /** Epoch seconds, for the records' `created_at`. */
  readonly now: () => number
}

/** Without an owner store there is no owner to check a scoped caller against (Portcullis). */
export const OWNER_STORE_REQUIRED =
  "Ownership checks need the gateway's owner store: enable service_accounts"

/**
 * One request's view for the handler checks: the caller's scoped id (ISO-1, V3-ISO-3), the path's
 * segments, the owner store (whose failures answer 503, never a pass) and the body as JSON.
 */
export class HandlerContext {
  readonly request: StageRequest
  readonly deps: HandlerChecksDeps
  /** The user id AgentOS's `get_scoped_user_id` gives the caller; null when unscoped. */
  readonly scoped: string | null

  constructor(deps: HandlerChecksDeps, request: StageRequest) {
    this.deps = deps
    this.request = request
    this.scoped = callerScope(request.principal, request.inbound.headers, {
      adminScope: deps.grants.adminScope,
      userIsolation: deps.userIsolation,
      scheduleOwnerHeader: deps.scheduleOwnerHeader,
    }).scoped
  }

  get principal(): StageRequest['principal'] {
    return this.request.principal
  }

  /** The path's segment at `index` (decoded); empty when the path is shorter. */
  segment(index: number): string {
    return this.request.route.segments[index] ?? ''
  }

  /** The body as JSON (a 400 when it is not); undefined when there is none. */
  async json(): Promise<unknown> {
    return requireJson(this.request.body)
  }

  /** The store, for a scoped caller whose request depends on it: refused when there is none. */
  requireStore(): ResourceOwners {
    const owners = this.deps.owners
    if (owners === undefined) {
      throw new GatewayError('ACCESS_DENIED', OWNER_STORE_REQUIRED, {
        reason: 'handlers.no_owner_store',
      })
    }
    return owners
  }

  async ownerOf(kind: OwnedResource, id: string): Promise<RecordedOwner> {
    return this.#store((owners) => owners.ownerOf(kind, id))
  }

  async ownersOf(
    kind: OwnedResource,
    ids: readonly string[],
  ): Promise<ReadonlyMap<string, string | null>> {
    return this.#store((owners) => owners.ownersOf(kind, ids))
  }

  async record(kind: OwnedResource, id: string, owner: string | null): Promise<string | null> {
    return this.#store((owners) => owners.record(kind, id, owner, this.deps.now()))
  }

  /**
   * Drops the record of a deleted row. The deletion happened: a store that cannot answer leaves a
   * record of an id no row has any more (ids are not reused), logged rather than answered.
   */
  async forget(kind: OwnedResource, id: string): Promise<void> {
    const owners = this.deps.owners
    if (owners === undefined) return
    try {
      await owners.forget(kind, id)
    } catch (error) {
      this.deps.logger.warn({ err: error, kind, id }, 'owner record of a deleted row not dropped')
    }
  }

  async #store<T>(operation: (owners: ResourceOwners) => Promise<T>): Promise<T> {
    const owners = this.requireStore()
    try {
      return await operation(owners)
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'owner store unavailable')
      throw new GatewayError('STORE_UNAVAILABLE', 'Resource owners are temporarily unavailable', {
        cause: error,
        reason: 'handlers.owner_store',
      })
    }
  }
}
