import type { AgentOsLine } from './agentos-line.js'
import type { CatalogueRoute, ResourceFamily } from './route-facts.js'
import type { DefaultScopeMapping } from './scope-patterns.js'

/** An A2A route below `{prefix}/{family}/{id}/`, and the action its scope names. */
export interface A2aFamilyRoute {
  readonly method: string
  readonly suffix: string
  readonly action: 'read' | 'run'
  /** The families that have it (AgentOS's A2A interface gives workflows no task routes). */
  readonly families: readonly ResourceFamily[]
}

/**
 * Everything Portcullis knows of one AgentOS release line, read from that version's source: its
 * default route → scope table, its routes with what their handlers do, the scheduler token's
 * scopes, its interface routes and the rules of the `/service-accounts` API it serves. One file
 * per line (`agentos-<line>.ts`); a later line is written as the changes from an earlier one.
 */
export interface AgentOsCatalogue {
  readonly line: AgentOsLine
  /** The agno versions this line covers, for docs and the version check. */
  readonly versions: string
  /** `get_default_scope_mappings()`, verbatim and in AgentOS's order (ROUTE-1). */
  readonly scopeMappings: readonly DefaultScopeMapping[]
  /** The routes whose handlers read identity or make checks of their own, and the public ones. */
  readonly routes: readonly CatalogueRoute[]
  /** The internal scheduler token's fixed scopes (AUTH-7). */
  readonly schedulerScopes: readonly string[]
  /** The A2A interface below its prefix (ROUTE-4). */
  readonly a2a: {
    readonly familyRoutes: readonly A2aFamilyRoute[]
    /** The deprecated dispatch below the prefix (`message/send`), gated on `agents:run`; the family comes from `X-Agent-ID`. */
    readonly dispatchRoutes: readonly string[]
  }
  /** The `/service-accounts` API (served by Portcullis): list and revoke filtered by owner. */
  readonly serviceAccountsOwnerScoped: boolean
  /** The scheduler's `X-Schedule-Owner` header scopes its requests to a schedule's owner. */
  readonly scheduleOwnerHeader: boolean
}
