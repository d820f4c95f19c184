import { scopedUserId, type Principal } from '../../principal.js'
import type { Grants } from '../../policy/grants.js'
import type { ResourceContext } from '../../policy/catalogue/route-facts.js'
import type { RouteTable } from '../../policy/route-table.js'
import { idMember, type JsonObject } from '../common/json.js'
import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import { runOwnershipRefusal } from './run-ownership.js'
import type { UpstreamLookup } from '../common/upstream-lookup.js'

/** The REST route a built-in AgentOS tool is checked as (MCP-6). */
interface ToolRoute {
  readonly method: string
  /** A path of the route's shape; ids do not matter for the lookup. */
  readonly shape: string
  readonly context: ResourceContext | undefined
  /** `continue_run` and `cancel_run`: the component whose run is acted on. */
  readonly lifecycle?: { readonly family: ResourceFamily; readonly id: string | undefined }
}

/** `deny.message` is the tool's exception text; AgentOS's MCP server wraps it (MCP-1). */
export type ToolDecision =
  | { readonly kind: 'allow'; readonly args: JsonObject; readonly changed: boolean }
  | { readonly kind: 'deny'; readonly message: string }

export const AMBIGUOUS_TARGET = 'Provide exactly one of agent_id, team_id, or workflow_id'

const RUN_TOOLS: Readonly<Record<string, readonly [ResourceFamily, string]>> = {
  run_agent: ['agents', 'agent_id'],
  run_team: ['teams', 'team_id'],
  run_workflow: ['workflows', 'workflow_id'],
}
const LIFECYCLE_TOOLS: Readonly<Record<string, string>> = {
  continue_run: 'continue',
  cancel_run: 'cancel',
}
const FAMILY_ID_KEYS: readonly (readonly [ResourceFamily, string])[] = [
  ['agents', 'agent_id'],
  ['teams', 'team_id'],
  ['workflows', 'workflow_id'],
]
/** Tools whose `user_id` argument is the caller's own whenever it has one (ISO-2). */
const RUN_USER_TOOLS = new Set(['run_agent', 'run_team', 'run_workflow', 'continue_run'])
/** Tools whose `user_id` argument is pinned for self-scoped callers. */
const READ_USER_TOOLS = new Set(['get_sessions', 'get_session_runs'])

function provided(value: unknown): boolean {
  return typeof value === 'string' ? value !== '' : value !== undefined && value !== null
}

/** The route of a built-in tool, 'ambiguous' when a lifecycle tool names no single component. */
export function toolRoute(name: string, args: JsonObject): ToolRoute | 'ambiguous' | undefined {
  const run = RUN_TOOLS[name]
  if (run !== undefined) {
    const [family, key] = run
    return {
      method: 'POST',
      shape: `/${family}/_/runs`,
      context: { family, id: idMember(args, key) },
    }
  }
  const action = LIFECYCLE_TOOLS[name]
  if (action !== undefined) {
    const named = FAMILY_ID_KEYS.filter(([, key]) => provided(args[key]))
    const [target] = named
    if (target === undefined || named.length !== 1) return 'ambiguous'
    const [family, key] = target
    const context = { family, id: idMember(args, key) }
    return { method: 'POST', shape: `/${family}/_/runs/_/${action}`, context, lifecycle: context }
  }
  switch (name) {
    case 'get_agentos_config':
      return { method: 'GET', shape: '/config', context: undefined }
    case 'get_sessions':
      return { method: 'GET', shape: '/sessions', context: undefined }
    case 'get_session_runs':
      return { method: 'GET', shape: '/sessions/_/runs', context: undefined }
  }
  return undefined
}

/**
 * AgentOS's per-tool gate (MCP-2, MCP-3): each built-in tool is checked as its REST route against
 * the default mapping only, for callers under authorization (service accounts always, JWTs when
 * `authorization` is on); a scoped caller's `continue_run`/`cancel_run` must name a run of its
 * own (MCP-4); other tools are the upstream's business. Then `user_id` is pinned.
 */
export class McpToolPolicy {
  readonly #table: RouteTable
  readonly #grants: Grants
  readonly #userIsolation: boolean
  readonly #lookup: UpstreamLookup

  /** `defaultScopes`: the AgentOS line's own table, without the user's mappings (MCP-6). */
  constructor(options: {
    defaultScopes: RouteTable
    grants: Grants
    userIsolation: boolean
    lookup: UpstreamLookup
  }) {
    this.#table = options.defaultScopes
    this.#grants = options.grants
    this.#userIsolation = options.userIsolation
    this.#lookup = options.lookup
  }

  async decide(principal: Principal, name: string, args: JsonObject): Promise<ToolDecision> {
    const route = toolRoute(name, args)
    // AgentOS resolves the component before anything else, whoever calls.
    if (route === 'ambiguous') return { kind: 'deny', message: AMBIGUOUS_TARGET }
    if (principal.authorizationEnabled) {
      const required = route === undefined ? [] : this.#required(route)
      const scopes = principal.scopes ?? []
      if (!this.#grants.satisfiesAll(scopes, required, route?.context)) {
        const message = `Insufficient permissions. Required scope(s): ${required.join(', ')}`
        return { kind: 'deny', message }
      }
    }
    const scoped = scopedUserId(principal, this.#grants.adminScope, this.#userIsolation)
    if (route?.lifecycle !== undefined && scoped !== null) {
      const refusal = await runOwnershipRefusal(
        this.#lookup,
        route.lifecycle,
        args['session_id'],
        args['run_id'],
        scoped,
      )
      if (refusal !== undefined) return { kind: 'deny', message: refusal }
    }
    return this.#pin(principal, name, args)
  }

  #required(route: ToolRoute): readonly string[] {
    return this.#table.match(route.method, route.shape)?.scopes ?? []
  }

  #pin(principal: Principal, name: string, args: JsonObject): ToolDecision {
    let userId: string | null = null
    if (RUN_USER_TOOLS.has(name)) userId = principal.userId
    else if (READ_USER_TOOLS.has(name))
      userId = scopedUserId(principal, this.#grants.adminScope, this.#userIsolation)
    if (userId === null || args['user_id'] === userId)
      return { kind: 'allow', args, changed: false }
    return { kind: 'allow', args: { ...args, user_id: userId }, changed: true }
  }
}
