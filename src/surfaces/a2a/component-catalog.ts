import type { ResourceFamily } from '../../policy/catalogue/route-facts.js'
import { isJsonObject } from '../common/json.js'
import { lookupFailed, type UpstreamLookup } from '../common/upstream-lookup.js'

// AgentOS resolves a dynamic-dispatch id among agents first, then teams, then workflows.
const FAMILIES: readonly ResourceFamily[] = ['agents', 'teams', 'workflows']

type Catalog = ReadonlyMap<ResourceFamily, ReadonlySet<string>>

/**
 * Which family a component id belongs to, from the upstream's `GET /config` (its agents, teams
 * and workflows), fetched on demand and reused for `ttlMs`. A failed fetch is not cached.
 */
export class ComponentCatalog {
  readonly #lookup: UpstreamLookup
  readonly #ttlMs: number
  readonly #now: () => number
  #cached: { catalog: Promise<Catalog>; at: number } | undefined

  constructor(options: { lookup: UpstreamLookup; ttlMs: number; now?: () => number }) {
    this.#lookup = options.lookup
    this.#ttlMs = options.ttlMs
    this.#now = options.now ?? Date.now
  }

  async familyOf(id: string): Promise<ResourceFamily | undefined> {
    const catalog = await this.#catalog()
    return FAMILIES.find((family) => catalog.get(family)?.has(id) === true)
  }

  #catalog(): Promise<Catalog> {
    const now = this.#now()
    const cached = this.#cached
    if (cached !== undefined && now - cached.at < this.#ttlMs) return cached.catalog
    const catalog = this.#fetch()
    this.#cached = { catalog, at: now }
    catalog.catch(() => {
      if (this.#cached?.catalog === catalog) this.#cached = undefined
    })
    return catalog
  }

  async #fetch(): Promise<Catalog> {
    const { status, value } = await this.#lookup('/config')
    if (status !== 200 || !isJsonObject(value)) throw lookupFailed('surfaces.catalog_lookup')
    const catalog = new Map<ResourceFamily, Set<string>>()
    for (const family of FAMILIES) {
      const list = value[family]
      const ids = new Set<string>()
      for (const item of Array.isArray(list) ? list : []) {
        if (isJsonObject(item) && typeof item['id'] === 'string') ids.add(item['id'])
      }
      catalog.set(family, ids)
    }
    return catalog
  }
}
