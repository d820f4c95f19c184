import type { OwnedResource } from '../../policy/catalogue/route-facts.js'
import type { RecordedOwner } from '../../service-accounts/resource-owners.js'

/**
 * What AgentOS 3.0 lets a scoped caller do with one row of a resource it owns through its own auth
 * state (V3-COMP-1, V3-SCHED-3, V3-KNOW-1), decided from the owner the gateway recorded. Pure:
 * the stage looks owners up and answers.
 */

/** How a scoped caller relates to one row: its own, a shared (unowned) one, or another's. */
export type RowAccess = 'own' | 'shared' | 'hidden'

/** Where a resource's rows live on the upstream and how AgentOS names them. */
export interface OwnedRows {
  /** The path of the listing and of creation. */
  readonly base: string
  /** The index of the row id among a path's segments (`/components/{id}`: 1). */
  readonly idSegment: number
  /** The member of a row (in an answer) that holds its id. */
  readonly idKey: string
  /**
   * The largest `limit` the listing accepts, used to read it whole (components: `le=100`;
   * schedules: `le=1000`; knowledge: none known, so the components' bound).
   */
  readonly pageSize: number
  /** A scoped caller sees unowned rows (components, content) or only its own (schedules). */
  readonly sharedVisible: boolean
  /**
   * A deleted row is gone, so its record is dropped (schedules, content); a deleted component is
   * archived and keeps its owner for a restore.
   */
  readonly forgottenOnDelete: boolean
  /** AgentOS's 404 for a row the caller cannot see. */
  notFound(id: string): string
  /** AgentOS's 403 for a write to a shared row; undefined where shared rows are invisible. */
  sharedRefusal(verb: 'modify' | 'delete'): string | undefined
}

export const OWNED_ROWS: Readonly<Record<OwnedResource, OwnedRows>> = {
  component: {
    base: '/components',
    idSegment: 1,
    idKey: 'component_id',
    pageSize: 100,
    sharedVisible: true,
    forgottenOnDelete: false,
    notFound: (id) => `Component ${id} not found`,
    sharedRefusal: (verb) => `Cannot ${verb} shared component`,
  },
  schedule: {
    base: '/schedules',
    idSegment: 1,
    idKey: 'id',
    pageSize: 1000,
    sharedVisible: false,
    forgottenOnDelete: true,
    notFound: () => 'Schedule not found',
    sharedRefusal: () => undefined,
  },
  knowledge_content: {
    base: '/knowledge/content',
    idSegment: 2,
    idKey: 'id',
    pageSize: 100,
    sharedVisible: true,
    forgottenOnDelete: true,
    notFound: (id) => `Content not found: ${id}`,
    sharedRefusal: (verb) => `Cannot ${verb} shared content`,
  },
}

/**
 * A row's access for a scoped caller. A row whose owner the gateway never recorded (made before
 * the gateway recorded owners, or past it) may be anyone's: it is hidden, as another user's is
 * (fail closed); a recorded null owner is a shared row.
 */
export function rowAccess(rows: OwnedRows, owner: RecordedOwner, scoped: string): RowAccess {
  if (!owner.known) return 'hidden'
  if (owner.owner !== null) return owner.owner === scoped ? 'own' : 'hidden'
  return rows.sharedVisible ? 'shared' : 'hidden'
}

/** The record of `id` among the recorded owners of a batch (`ownersOf`). */
export function recordedIn(owners: ReadonlyMap<string, string | null>, id: string): RecordedOwner {
  const owner = owners.get(id)
  return owner === undefined ? { known: false } : { known: true, owner }
}

/** Whether a listed row stays in a scoped caller's listing (`owners`: the recorded ones). */
export function listedFor(
  rows: OwnedRows,
  owners: ReadonlyMap<string, string | null>,
  id: string,
  scoped: string,
): boolean {
  return rowAccess(rows, recordedIn(owners, id), scoped) !== 'hidden'
}

/** The owner AgentOS stamps on a row it creates: the scoped id, else the caller's own. */
export function creatorOf(scoped: string | null, userId: string | null): string | null {
  return scoped ?? userId
}
