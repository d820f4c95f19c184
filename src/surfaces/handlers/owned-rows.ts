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
    notFound: (id) => `Component ${id} not found`,
    sharedRefusal: (verb) => `Cannot ${verb} shared component`,
  },
  schedule: {
    base: '/schedules',
    idSegment: 1,
    idKey: 'id',
    pageSize: 1000,
    sharedVisible: false,
    notFound: () => 'Schedule not found',
    sharedRefusal: () => undefined,
  },
  knowledge_content: {
    base: '/knowledge/content',
    idSegment: 2,
    idKey: 'id',
    pageSize: 100,
    sharedVisible: true,
    notFound: () => 'Content not found',
    sharedRefusal: (verb) => `Cannot ${verb} shared content`,
  },
}

/** A row's access for a scoped caller: no record and a null owner both mean unowned. */
export function rowAccess(rows: OwnedRows, owner: RecordedOwner, scoped: string): RowAccess {
  const recorded = owner.known ? owner.owner : null
  if (recorded !== null) return recorded === scoped ? 'own' : 'hidden'
  return rows.sharedVisible ? 'shared' : 'hidden'
}

/** Whether a listed row stays in a scoped caller's listing (`owners`: the recorded ones). */
export function listedFor(
  rows: OwnedRows,
  owners: ReadonlyMap<string, string | null>,
  id: string,
  scoped: string,
): boolean {
  const owner = owners.get(id)
  return (
    rowAccess(rows, owner === undefined ? { known: false } : { known: true, owner }, scoped) !==
    'hidden'
  )
}

/** The owner AgentOS stamps on a row it creates: the scoped id, else the caller's own. */
export function creatorOf(scoped: string | null, userId: string | null): string | null {
  return scoped ?? userId
}
