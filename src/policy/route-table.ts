import { agentosPatternToTemplate, DEFAULT_SCOPE_MAPPINGS } from './default-scope-mappings.js'
import { parseMappingKey, parseTemplate, ruleKey, type TemplateSegment } from './route-template.js'

export { mappingKeyProblem, parseMappingKey, type MappingKey } from './route-template.js'

export type RouteSource = 'default' | 'custom' | 'interface'

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
  /** The user's `scope_mappings`: `"<METHOD> <path>"` → scopes; null when not configured. */
  readonly scopeMappings: Readonly<Record<string, readonly string[]>> | null
  /** Mappings contributed by protocol interfaces (A2A, AG-UI). */
  readonly interfaceMappings?: readonly RouteEntry[]
}

interface TrieNode {
  readonly literals: Map<string, TrieNode>
  param: TrieNode | undefined
  /** The rule whose template ends here with `{**}`: it takes every remaining segment. */
  tail: RouteMatch | undefined
  /** The rule whose template ends exactly here. */
  end: RouteMatch | undefined
}

function newNode(): TrieNode {
  return { literals: new Map(), param: undefined, tail: undefined, end: undefined }
}

function insert(root: TrieNode, segments: readonly TemplateSegment[], match: RouteMatch): void {
  let node = root
  for (const segment of segments) {
    switch (segment.kind) {
      case 'literal': {
        let next = node.literals.get(segment.value)
        if (next === undefined) node.literals.set(segment.value, (next = newNode()))
        node = next
        break
      }
      case 'param':
        node = node.param ??= newNode()
        break
      case 'tail':
        node.tail = match
        return
    }
  }
  node.end = match
}

/**
 * Depth-first in the order literal, one-segment parameter, tail: the first complete match is the
 * most specific one, compared segment by segment from the left. A parameter also matches an empty
 * segment, as fnmatch's `*` does (canonical paths have none).
 */
function find(node: TrieNode, segments: readonly string[], index: number): RouteMatch | undefined {
  const segment = segments[index]
  if (segment === undefined) return node.end
  const literal = node.literals.get(segment)
  const viaLiteral = literal === undefined ? undefined : find(literal, segments, index + 1)
  if (viaLiteral !== undefined) return viaLiteral
  const viaParam = node.param === undefined ? undefined : find(node.param, segments, index + 1)
  return viaParam ?? node.tail
}

/** AgentOS's default table as Portcullis rules. */
export function defaultRouteEntries(): RouteEntry[] {
  return DEFAULT_SCOPE_MAPPINGS.map(([method, pattern, scopes]) => ({
    method,
    template: agentosPatternToTemplate(pattern),
    scopes,
    source: 'default',
  }))
}

/** Route → required scopes, compiled once into a trie per method; matching builds no rules. */
export class RouteTable {
  readonly #roots = new Map<string, TrieNode>()
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
      let root = this.#roots.get(entry.method)
      if (root === undefined) this.#roots.set(entry.method, (root = newNode()))
      insert(root, segments, match)
    }
    this.#entries = Object.freeze(kept)
  }

  /** Defaults, then interface mappings, then the user's `scope_mappings` (the last word). */
  static fromConfig(config: RouteTableConfig): RouteTable {
    const custom = Object.entries(config.scopeMappings ?? {}).map(([key, scopes]): RouteEntry => ({
      ...parseMappingKey(key),
      scopes,
      source: 'custom',
    }))
    return new RouteTable([
      ...defaultRouteEntries(),
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
    const root = this.#roots.get(method)
    if (root === undefined || !path.startsWith('/')) return undefined
    return find(root, path === '/' ? [] : path.slice(1).split('/'), 0)
  }
}
