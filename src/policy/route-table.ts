import { agentosPatternToTemplate, type DefaultScopeMapping } from './catalogue/scope-patterns.js'
import { parseMappingKey, parseTemplate, ruleKey, type TemplateSegment } from './route-template.js'
import { pathSegments, TemplateTrie } from './template-trie.js'

export { mappingKeyProblem, parseMappingKey, type MappingKey } from './route-template.js'

export type RouteSource = 'default' | 'portcullis' | 'custom' | 'interface'

/**
 * A rule: `{name}` or `*` is one segment, a final `{**}` or `**` one or more segments. `scopes`
 * are all required; `[]` allows the route without scopes, which differs from having no rule.
 */
export interface RouteEntry {
  readonly method: string
  readonly template: string
  readonly scopes: readonly string[]
  readonly source: RouteSource
}

/** The rule a request resolved to; `template` is bounded, so it can serve as a metrics label. */
export interface RouteMatch {
  readonly template: string
  readonly scopes: readonly string[]
  readonly source: RouteSource
}

export interface RouteTableConfig {
  /** The AgentOS line's default table (its catalogue's `scopeMappings`). */
  readonly defaults: readonly DefaultScopeMapping[]
  /** The routes Portcullis itself adds to every line's table, in the same form. */
  readonly portcullis?: readonly DefaultScopeMapping[]
  /** The user's `scope_mappings`: `"<METHOD> <path>"` → scopes; null when not configured. */
  readonly scopeMappings: Readonly<Record<string, readonly string[]>> | null
  /** Mappings contributed by protocol interfaces (A2A, AG-UI). */
  readonly interfaceMappings?: readonly RouteEntry[]
}

/** An AgentOS default table (or Portcullis's own routes, `source`) as Portcullis rules. */
export function defaultRouteEntries(
  defaults: readonly DefaultScopeMapping[],
  source: RouteSource = 'default',
): RouteEntry[] {
  return defaults.map(([method, pattern, scopes]) => ({
    method,
    template: agentosPatternToTemplate(pattern),
    scopes,
    source,
  }))
}

/** Route → required scopes, compiled once into a trie per method; matching builds no rules. */
export class RouteTable {
  readonly #tries = new Map<string, TemplateTrie<RouteMatch>>()
  readonly #entries: readonly RouteEntry[]

  /** Later entries replace earlier ones with the same rule key, in place. */
  constructor(entries: readonly RouteEntry[]) {
    const rules = new Map<string, { entry: RouteEntry; segments: TemplateSegment[] }>()
    for (const entry of entries) {
      const segments = parseTemplate(entry.template)
      rules.set(ruleKey(entry.method, segments), { entry, segments })
    }
    const kept: RouteEntry[] = []
    for (const { entry, segments } of rules.values()) {
      const scopes = Object.freeze([...entry.scopes])
      kept.push(Object.freeze({ ...entry, scopes }))
      const match = Object.freeze({ template: entry.template, scopes, source: entry.source })
      let trie = this.#tries.get(entry.method)
      if (trie === undefined) this.#tries.set(entry.method, (trie = new TemplateTrie()))
      trie.insert(segments, match)
    }
    this.#entries = Object.freeze(kept)
  }

  /**
   * Defaults, then Portcullis's own routes, then interface mappings, then the user's
   * `scope_mappings` (the last word).
   */
  static fromConfig(config: RouteTableConfig): RouteTable {
    const custom = Object.entries(config.scopeMappings ?? {}).map(([key, scopes]): RouteEntry => ({
      ...parseMappingKey(key),
      scopes,
      source: 'custom',
    }))
    return new RouteTable([
      ...defaultRouteEntries(config.defaults),
      ...defaultRouteEntries(config.portcullis ?? [], 'portcullis'),
      ...(config.interfaceMappings ?? []),
      ...custom,
    ])
  }

  /** The effective rules, in first-definition order (an override keeps its position). */
  get entries(): readonly RouteEntry[] {
    return this.#entries
  }

  /** Case-sensitive; `path` is the canonical path (no query string, no trailing `/`). */
  match(method: string, path: string): RouteMatch | undefined {
    const trie = this.#tries.get(method)
    if (trie === undefined) return undefined
    const segments = pathSegments(path)
    return segments === undefined ? undefined : trie.find(segments)
  }

  /** As `match`, for a path already split into segments. */
  matchSegments(method: string, segments: readonly string[]): RouteMatch | undefined {
    return this.#tries.get(method)?.find(segments)
  }
}
