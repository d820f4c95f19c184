/**
 * The vocabulary of the route catalogue: what an AgentOS route does with identity and which checks
 * its handler makes beyond the route scopes. Each AgentOS line's catalogue is written in these
 * terms; the stages of the request path read them from the matched entry.
 */

/** The families whose paths carry per-resource scopes (SCOPE-3) and route gates (RBAC-3). */
export const RESOURCE_FAMILIES = ['agents', 'teams', 'workflows'] as const
export type ResourceFamily = (typeof RESOURCE_FAMILIES)[number]

export function isResourceFamily(segment: string | undefined): segment is ResourceFamily {
  return RESOURCE_FAMILIES.some((family) => family === segment)
}

/** The resource a path addresses for AgentOS's per-resource scopes (SCOPE-3). */
export interface ResourceContext {
  readonly family: string
  /** Absent on an id-less path such as a listing. */
  readonly id: string | undefined
}

/** `agent`, `team`, `workflow`: how AgentOS names one member of a family in its texts. */
export const SINGULAR: Readonly<Record<ResourceFamily, string>> = {
  agents: 'agent',
  teams: 'team',
  workflows: 'workflow',
}

/** `Agent`, `Team`, `Workflow`: the capitalised form of AgentOS's `<Kind> not found` texts. */
export function capitalizedSingular(family: ResourceFamily): string {
  const singular = SINGULAR[family]
  return singular.charAt(0).toUpperCase() + singular.slice(1)
}

/**
 * How a handler reads or gates identity (ISO-2, ISO-3, RBAC-2, INFO-1), which decides what the
 * identity stage pins and checks.
 */
export type IdentityClass =
  /** `POST /{family}/{id}/runs`: the form's `user_id` and `session_id` are the caller's. */
  | 'run'
  /** `POST …/runs/{run}/continue`: a run route and an ownership gate. */
  | 'run-continue'
  /** `POST …/runs/{run}/cancel` and `…/resume`: ownership gates (`session_id` required). */
  | 'run-gated'
  /** `POST /{agents|teams}/{id}/sessions/{sid}/fork`: the query `user_id` of any caller. */
  | 'fork'
  /** `POST /sessions`: the body's `user_id` is the caller's. */
  | 'session-create'
  /** Memory writes: the scoped id, even where the body has none. */
  | 'memory-write'
  /** Learnings: the scoped id, and another user's id refused with AgentOS's texts. */
  | 'learnings'
  /** `GET /agents|/teams|/workflows`: filtered to the caller's ids. */
  | 'listing'
  /** `GET /info`: the auth mode is the gateway's. */
  | 'info'

/** Resources an AgentOS 3.0 handler checks ownership of; an open upstream records no owner. */
export type OwnedResource = 'component' | 'schedule' | 'knowledge_content'

/** What a handler does with ownership of one resource on one route. */
export type OwnershipVerb =
  /** Creates the row: the caller becomes its owner. */
  | 'create'
  /** Lists rows: a scoped caller sees its own (and, for components and content, unowned ones). */
  | 'list'
  /** Reads one row: another user's is not found. */
  | 'read'
  /** Changes one row: another user's is not found, an unowned one refused. */
  | 'modify'
  /** Deletes one row: as `modify`, with the delete text. */
  | 'delete'
  /** Restores an archived row: as `modify`, but a shared row is refused only while archived. */
  | 'restore'
  /** Deletes every row at once: a scoped caller would delete rows it may not (V3-KNOW-1). */
  | 'delete-all'

/**
 * A check AgentOS makes inside a route handler, from the request state an open instance never
 * fills; the gateway makes it at the edge. Each is documented in docs/agentos-compatibility.md.
 */
export type HandlerCheck =
  /** RBAC-3: `require_resource_access` on the path's `{family}/{id}`. */
  | { readonly kind: 'resource-access'; readonly action: 'read' | 'run' }
  /** V3-QUEUE: any identified caller must hold the admin scope; anonymous callers pass. */
  | { readonly kind: 'admin-when-identified'; readonly detail: string }
  /** V3-ISO-1: under user isolation a non-admin caller must have a user identity. */
  | { readonly kind: 'identity-required' }
  /**
   * V3-SCHED-1: the schedule's target endpoint needs the admin scope or the target's run scope.
   * The target is the body's (create), the stored one (enable), the stored one of an enabled
   * schedule (trigger: a disabled one is the handler's 409 first), or the body's fields over the
   * stored ones when the body changes them (update).
   */
  | {
      readonly kind: 'schedule-target'
      readonly target: 'body' | 'stored' | 'triggered' | 'changed'
    }
  /**
   * V3-COMP, V3-SCHED-3, V3-KNOW: ownership of the resource the path (or the answer) names;
   * `notFound` the handler's 404 text when it is not the resource's own.
   */
  | {
      readonly kind: 'ownership'
      readonly resource: OwnedResource
      readonly verb: OwnershipVerb
      readonly notFound?: string
    }
  /**
   * V3-DRAFT: a draft `version` runs only for privileged callers and the component's owner: the
   * version a run start's form or a read's query names, or the one stamped on the run a continue
   * names (`stamp`).
   */
  | { readonly kind: 'draft-preview'; readonly field: 'form' | 'query' | 'stamp' }
  /** V3-COMP-2: the components a body's `config` names must be visible to the caller. */
  | { readonly kind: 'component-references' }
  /** A2A-5: the deprecated dispatch needs the run scope of the family `X-Agent-ID` names. */
  | { readonly kind: 'a2a-dispatch' }
  /** A2A-5, A2A-6: a scoped caller's `tasks:get` and `tasks:cancel` must name a run of its own. */
  | { readonly kind: 'a2a-task-ownership'; readonly operation: 'get' | 'cancel' }

/** The protocol surface that takes over a route after identity enforcement. */
export type SurfaceName = 'mcp' | 'a2a' | 'agui'

/** One route of an AgentOS line, as written in its catalogue. */
export interface CatalogueRoute {
  /** An upper-case method, or `*` for every method. */
  readonly method: string
  /** A segment template: `{name}` one segment, a final `{**}` one or more. */
  readonly path: string
  readonly identity?: IdentityClass
  readonly checks?: readonly HandlerCheck[]
  readonly surface?: SurfaceName
}
