/**
 * Rows of the upstream that AgentOS 3.0 owns only through its own auth state, which an open
 * AgentOS never has: the gateway records who created them (OWN-1).
 */
export const OWNED_RESOURCE_KINDS = ['component', 'schedule', 'knowledge_content'] as const

export type OwnedResourceKind = (typeof OWNED_RESOURCE_KINDS)[number]

/** What the gateway knows of one row's owner; `owner` null: a workspace-level (shared) row. */
export type RecordedOwner =
  { readonly known: false } | { readonly known: true; readonly owner: string | null }

/**
 * The owners the gateway recorded, in the same database as the service accounts. Errors meaning
 * "cannot reach the database / timed out" are thrown as `StoreUnavailableError`.
 */
export interface ResourceOwners {
  /**
   * Records `owner` for a row unless one is recorded already: the first writer wins, a later
   * record never changes it. Resolves to the owner in force afterwards.
   */
  record(
    kind: OwnedResourceKind,
    id: string,
    owner: string | null,
    nowSeconds: number,
  ): Promise<string | null>
  ownerOf(kind: OwnedResourceKind, id: string): Promise<RecordedOwner>
  /** One query for many rows (a listing): the recorded ones only, by id. */
  ownersOf(
    kind: OwnedResourceKind,
    ids: readonly string[],
  ): Promise<ReadonlyMap<string, string | null>>
  /** Drops a row's record (the row was deleted); false when there was none. */
  forget(kind: OwnedResourceKind, id: string): Promise<boolean>
}
