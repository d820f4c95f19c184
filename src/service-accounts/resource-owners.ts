import type { OwnedResource } from '../policy/catalogue/route-facts.js'

/** What the gateway knows of one row's owner; `owner` null: a workspace-level (shared) row. */
export type RecordedOwner =
  { readonly known: false } | { readonly known: true; readonly owner: string | null }

/**
 * The owners of upstream rows AgentOS 3.0 owns only through its own auth state, which an open
 * AgentOS never has (OWN-1): the gateway records them, in the same database as the service
 * accounts, by the catalogue's `OwnedResource` kinds. Errors meaning "cannot reach the database /
 * timed out" are thrown as `StoreUnavailableError`.
 */
export interface ResourceOwners {
  /**
   * Records `owner` for a row unless one is recorded already: the first writer wins, a later
   * record never changes it. Resolves to the owner in force afterwards.
   */
  record(
    kind: OwnedResource,
    id: string,
    owner: string | null,
    nowSeconds: number,
  ): Promise<string | null>
  ownerOf(kind: OwnedResource, id: string): Promise<RecordedOwner>
  /** One query for many rows (a listing): the recorded ones only, by id. */
  ownersOf(kind: OwnedResource, ids: readonly string[]): Promise<ReadonlyMap<string, string | null>>
  /** Drops a row's record (the row was deleted); false when there was none. */
  forget(kind: OwnedResource, id: string): Promise<boolean>
}
