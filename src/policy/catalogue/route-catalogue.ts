import { BoundedCache } from '../../bounded-cache.js'
import { parseTemplate, type TemplateSegment } from '../route-template.js'
import { RouteTable, type RouteEntry, type RouteMatch } from '../route-table.js'
import { pathSegments, TemplateTrie } from '../template-trie.js'
import type { AgentOsCatalogue } from './agentos-catalogue.js'
import type { AgentOsLine } from './agentos-line.js'
import { PORTCULLIS_SCOPE_MAPPINGS } from './portcullis-routes.js'
import { agentosPatternToTemplate } from './scope-patterns.js'
export type { ResourceContext } from './route-facts.js'

import {
  isResourceFamily,
  RESOURCE_FAMILIES,
  type CatalogueRoute,
  type HandlerCheck,
  type IdentityClass,
  type ResourceContext,
  type ResourceFamily,
  type SurfaceName,
} from './route-facts.js'

/** The interface endpoints a config mounts; they add routes to the line's own. */
export interface InterfaceRoutes {
  /** The A2A prefix; undefined when A2A is off. */
  readonly a2aPrefix: string | undefined
  readonly aguiEndpoints: readonly { readonly prefix: string; readonly bound: 'agent' | 'team' }[]
  /** The MCP endpoint's path (checked by its surface even when MCP is not inspected). */
  readonly mcpPath: string
}

export interface CatalogueOptions {
  readonly catalogue: AgentOsCatalogue
  /** The user's `scope_mappings` (ROUTE-3); null when not configured. */
  readonly scopeMappings: Readonly<Record<string, readonly string[]>> | null
  readonly interfaces: InterfaceRoutes
}

/** A catalogue route, compiled: its facts and where its resource id sits in a path. */
export interface CompiledRoute {
  readonly method: string
  readonly template: string
  readonly identity: IdentityClass | undefined
  readonly checks: readonly HandlerCheck[]
  readonly surface: SurfaceName | undefined
  /** The `{family}/{id}` the path names: the family and the index of the id segment. */
  readonly resource: { readonly family: ResourceFamily; readonly idIndex: number } | undefined
  /** The scopes AgentOS's table in force requires on this route (for docs; requests use `rule`). */
  readonly scopes: readonly string[] | undefined
}

/** A route-level `require_resource_access` check (RBAC-3), with the path's id. */
export interface RouteGate {
  readonly family: ResourceFamily
  readonly id: string
  readonly action: 'read' | 'run'
  /** `<family>:<action>`, the scope checked (made with the match, not on every request). */
  readonly scope: string
}

/** What the catalogue knows of one request: matched once, read by every later stage. */
export interface MatchedRoute {
  /** The method it is decided as: HEAD as the GET it mirrors, unless a rule names HEAD itself. */
  readonly method: string
  readonly path: string
  readonly segments: readonly string[]
  /** The scope rule (ROUTE-1 to ROUTE-4); undefined when none covers the route. */
  readonly rule: RouteMatch | undefined
  /** The catalogue route, when the line knows what its handler does. */
  readonly route: CompiledRoute | undefined
  readonly context: ResourceContext | undefined
  readonly gate: RouteGate | undefined
  /** A bounded metrics label before authorization: the path's first segment when known, else `other`. */
  readonly familyLabel: string
}

const NO_CHECKS: readonly HandlerCheck[] = Object.freeze([])

/**
 * A request matched against no catalogue (no AgentOS line is in force yet): nothing is known but
 * its metrics label, from the route families of every line (`families`, see `routeFamilies`).
 */
export function unmatchedRoute(
  method: string,
  path: string,
  families: ReadonlySet<string>,
): MatchedRoute {
  const segments = pathSegments(path) ?? []
  return {
    method,
    path,
    segments,
    rule: undefined,
    route: undefined,
    context: undefined,
    gate: undefined,
    familyLabel: familyLabel(families, segments),
  }
}

/** The first path segments the catalogues' routes and default scope rules begin with. */
export function routeFamilies(catalogues: readonly AgentOsCatalogue[]): ReadonlySet<string> {
  const families = new Set<string>()
  for (const catalogue of catalogues) {
    for (const route of catalogue.routes) addFamily(families, parseTemplate(route.path))
    for (const [, pattern] of catalogue.scopeMappings) {
      addFamily(families, parseTemplate(agentosPatternToTemplate(pattern)))
    }
  }
  return families
}

function familyLabel(families: ReadonlySet<string>, segments: readonly string[]): string {
  const first = segments[0]
  if (first === undefined) return '/'
  return families.has(first) ? `/${first}` : 'other'
}
const WILDCARD_METHOD = '*'
/** Matches remembered per method: far more than the paths a deployment's clients use at once. */
const REMEMBERED_MATCHES = 2_048
/** Longer paths are matched every time: a remembered path is kept, and keys stay small. */
const MAX_REMEMBERED_PATH = 512

/**
 * One AgentOS line's routes compiled for one config: the scope table in force (the line's
 * defaults, the interfaces' mappings, the user's `scope_mappings`) and the routes' facts, each a
 * trie per method. A request is matched once (`match`); everything after reads the result.
 */
export class RouteCatalogue {
  readonly line: AgentOsLine
  readonly catalogue: AgentOsCatalogue
  /** The scope table in force: the line's, Portcullis's own routes, interfaces, the user's. */
  readonly scopes: RouteTable
  /** The line's defaults alone: AgentOS checks MCP tools against them (MCP-6). */
  readonly defaultScopes: RouteTable
  readonly routes: readonly CompiledRoute[]
  readonly #tries = new Map<string, TemplateTrie<CompiledRoute>>()
  readonly #families: ReadonlySet<string>
  /** Recent matches by method, then path: a match depends on nothing else. */
  readonly #recent = new Map<string, BoundedCache<string, MatchedRoute>>()

  constructor(options: CatalogueOptions) {
    const { catalogue, interfaces } = options
    this.line = catalogue.line
    this.catalogue = catalogue
    const interfaceMappings = interfaceScopeMappings(catalogue, interfaces)
    this.scopes = RouteTable.fromConfig({
      defaults: catalogue.scopeMappings,
      portcullis: PORTCULLIS_SCOPE_MAPPINGS,
      scopeMappings: options.scopeMappings,
      interfaceMappings,
    })
    this.defaultScopes = RouteTable.fromConfig({
      defaults: catalogue.scopeMappings,
      scopeMappings: null,
    })
    const families = new Set<string>()
    const compiled: CompiledRoute[] = []
    for (const route of [...catalogue.routes, ...interfaceRoutes(catalogue, interfaces)]) {
      const segments = parseTemplate(route.path)
      const entry = this.#compile(route, segments)
      compiled.push(entry)
      let trie = this.#tries.get(route.method)
      if (trie === undefined) this.#tries.set(route.method, (trie = new TemplateTrie()))
      trie.insert(segments, entry)
      addFamily(families, segments)
    }
    for (const rule of this.scopes.entries) addFamily(families, parseTemplate(rule.template))
    this.routes = Object.freeze(compiled)
    this.#families = families
  }

  /**
   * `path` is canonical (no query string, no trailing `/`); the method is case-sensitive. Clients
   * ask for the same few paths over and over, so recent answers are kept, per method.
   */
  match(requestMethod: string, path: string): MatchedRoute {
    if (path.length > MAX_REMEMBERED_PATH) return this.#match(requestMethod, path)
    let recent = this.#recent.get(requestMethod)
    if (recent === undefined) {
      recent = new BoundedCache({ max: REMEMBERED_MATCHES })
      this.#recent.set(requestMethod, recent)
    }
    return recent.get(path) ?? recent.remember(path, this.#match(requestMethod, path))
  }

  #match(requestMethod: string, path: string): MatchedRoute {
    const segments = pathSegments(path) ?? []
    let method = requestMethod
    let rule = this.scopes.matchSegments(method, segments)
    if (rule === undefined && method === 'HEAD') {
      method = 'GET'
      rule = this.scopes.matchSegments(method, segments)
    }
    const route =
      this.#tries.get(method)?.find(segments) ?? this.#tries.get(WILDCARD_METHOD)?.find(segments)
    return Object.freeze({
      method,
      path,
      segments: Object.freeze(segments),
      rule,
      route,
      // Frozen all through: a match is shared by the requests for its path, and what is derived
      // from its parts (Grants' requirements per path) is kept by them.
      context: freezeIfAny(resourceContext(segments)),
      gate: route === undefined ? undefined : freezeIfAny(routeGate(route, segments)),
      familyLabel: this.#familyLabel(segments),
    })
  }

  #familyLabel(segments: readonly string[]): string {
    return familyLabel(this.#families, segments)
  }

  #compile(route: CatalogueRoute, segments: readonly TemplateSegment[]): CompiledRoute {
    const scopes =
      route.method === WILDCARD_METHOD
        ? undefined
        : this.scopes.matchSegments(route.method, templateAsPath(segments))?.scopes
    return Object.freeze({
      method: route.method,
      template: route.path,
      identity: route.identity,
      checks: route.checks === undefined ? NO_CHECKS : Object.freeze([...route.checks]),
      surface: route.surface,
      resource: resourceOf(segments),
      scopes,
    })
  }
}

function addFamily(families: Set<string>, segments: readonly TemplateSegment[]): void {
  const [first] = segments
  if (first?.kind === 'literal') families.add(first.value)
}

/** A path of the template's shape, to ask the scope table what it requires there. */
function templateAsPath(segments: readonly TemplateSegment[]): string[] {
  return segments.map((segment) => (segment.kind === 'literal' ? segment.value : '{}'))
}

/** The first `{family}/{param}` pair of a template. */
function resourceOf(segments: readonly TemplateSegment[]): CompiledRoute['resource'] {
  for (let index = 0; index + 1 < segments.length; index += 1) {
    const segment = segments[index]
    if (segment?.kind !== 'literal' || !isResourceFamily(segment.value)) continue
    if (segments[index + 1]?.kind === 'param') return { family: segment.value, idIndex: index + 1 }
  }
  return undefined
}

function freezeIfAny<T extends object>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : Object.freeze(value)
}

function routeGate(route: CompiledRoute, segments: readonly string[]): RouteGate | undefined {
  const access = route.checks.find((check) => check.kind === 'resource-access')
  const resource = route.resource
  if (access === undefined || resource === undefined) return undefined
  const id = segments[resource.idIndex]
  if (id === undefined || id === '') return undefined
  return {
    family: resource.family,
    id,
    action: access.action,
    scope: `${resource.family}:${access.action}`,
  }
}

/**
 * AgentOS's `get_resource_context_from_path`: the first segment, or the second after a literal
 * `a2a`, must be exactly a family; the id is the next segment (`[^/]+`, so an empty one is no id).
 * `/knowledge/content/agents-x`, `/agentsfoo` and `/traces/agents-run-1` have no context.
 */
function resourceContext(segments: readonly string[]): ResourceContext | undefined {
  const offset = segments[0] === 'a2a' && isResourceFamily(segments[1]) ? 1 : 0
  const family = segments[offset]
  if (!isResourceFamily(family)) return undefined
  const id = segments[offset + 1]
  return { family, id: id === '' ? undefined : id }
}

function interfaceMapping(method: string, template: string, scope: string): RouteEntry {
  return { method, template, scopes: [scope], source: 'interface' }
}

/** The AG-UI family of an endpoint: an agent-bound one runs agents, a team-bound one teams. */
export function aguiFamily(bound: 'agent' | 'team'): ResourceFamily {
  return bound === 'agent' ? 'agents' : 'teams'
}

/** The scope mappings the mounted interfaces add (ROUTE-4), as AgentOS passes them to its middleware. */
function interfaceScopeMappings(
  catalogue: AgentOsCatalogue,
  interfaces: InterfaceRoutes,
): RouteEntry[] {
  const entries: RouteEntry[] = []
  const prefix = interfaces.a2aPrefix
  if (prefix !== undefined) {
    // In AgentOS's order: each family's routes together.
    for (const family of RESOURCE_FAMILIES) {
      for (const route of catalogue.a2a.familyRoutes) {
        if (!route.families.includes(family)) continue
        const template = `${prefix}/${family}/{id}/${route.suffix}`
        entries.push(interfaceMapping(route.method, template, `${family}:${route.action}`))
      }
    }
    for (const suffix of catalogue.a2a.dispatchRoutes) {
      entries.push(interfaceMapping('POST', `${prefix}/${suffix}`, 'agents:run'))
    }
  }
  for (const { prefix: agui, bound } of interfaces.aguiEndpoints) {
    entries.push(interfaceMapping('POST', `${agui}/agui`, `${aguiFamily(bound)}:run`))
  }
  return entries
}

/** The interface routes whose requests a surface takes over after identity enforcement. */
function interfaceRoutes(
  catalogue: AgentOsCatalogue,
  interfaces: InterfaceRoutes,
): CatalogueRoute[] {
  const routes: CatalogueRoute[] = [
    { method: WILDCARD_METHOD, path: interfaces.mcpPath, surface: 'mcp' },
    { method: WILDCARD_METHOD, path: `${interfaces.mcpPath}/{**}`, surface: 'mcp' },
  ]
  const prefix = interfaces.a2aPrefix
  if (prefix !== undefined) {
    for (const route of catalogue.a2a.familyRoutes) {
      if (route.method !== 'POST') continue
      const checks = TASK_CHECKS[route.suffix] ?? []
      for (const family of route.families) {
        const path = `${prefix}/${family}/{id}/${route.suffix}`
        routes.push({ method: 'POST', path, surface: 'a2a', checks })
      }
    }
    for (const suffix of catalogue.a2a.dispatchRoutes) {
      routes.push({
        method: 'POST',
        path: `${prefix}/${suffix}`,
        surface: 'a2a',
        checks: [DISPATCH],
      })
    }
  }
  for (const { prefix: agui } of interfaces.aguiEndpoints) {
    routes.push({ method: 'POST', path: `${agui}/agui`, surface: 'agui' })
    routes.push({ method: 'GET', path: `${agui}/status` })
  }
  return routes
}

/** The A2A task routes whose scoped callers must own the run (A2A-5, A2A-6). */
const TASK_CHECKS: Readonly<Record<string, readonly HandlerCheck[]>> = {
  'v1/tasks:get': [Object.freeze({ kind: 'a2a-task-ownership', operation: 'get' })],
  'v1/tasks:cancel': [Object.freeze({ kind: 'a2a-task-ownership', operation: 'cancel' })],
}
const DISPATCH: HandlerCheck = Object.freeze({ kind: 'a2a-dispatch' })
