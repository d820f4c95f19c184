/**
 * 3.0's component catalogue: agents, teams and workflows stored as rows with numbered config
 * versions, each a `draft` or `published`. A row whose id is a served agent's id holds that
 * agent's versions, which a run can pin with `version`.
 */
import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../params.js'
import { nowSeconds, type SessionType } from '../store.js'

export type ComponentType = SessionType

export const COMPONENT_TYPES: readonly ComponentType[] = ['agent', 'team', 'workflow']

export const STAGES = ['draft', 'published'] as const

export interface CatalogComponent {
  component_id: string
  component_type: ComponentType
  name: string
  description: string | null
  metadata: JsonObject | null
  current_version: number | null
  /** the owner; an open AgentOS never learns one */
  user_id: string | null
  created_at: number
  updated_at: number | null
  /** set while archived (soft-deleted) */
  deleted_at: number | null
}

export interface ComponentConfig {
  component_id: string
  version: number
  label: string | null
  stage: string
  config: JsonObject
  notes: string | null
  created_at: number
  updated_at: number | null
}

export type ConfigFields = Pick<ComponentConfig, 'label' | 'stage' | 'config' | 'notes'>

export class ComponentCatalog {
  readonly #components = new Map<string, CatalogComponent>()
  readonly #configs = new Map<string, ComponentConfig[]>()

  find(id: string, includeDeleted = false): CatalogComponent | undefined {
    const component = this.#components.get(id)
    return component?.deleted_at === null || includeDeleted ? component : undefined
  }

  list(type: ComponentType | undefined, includeDeleted: boolean): CatalogComponent[] {
    return [...this.#components.values()].filter(
      (component) =>
        (type === undefined || component.component_type === type) &&
        (includeDeleted || component.deleted_at === null),
    )
  }

  has(id: string): boolean {
    return this.#components.has(id)
  }

  /** A new row with its first config as version 1, current only when published. */
  create(
    fields: Pick<CatalogComponent, 'component_id' | 'component_type' | 'name' | 'description'> &
      Pick<CatalogComponent, 'metadata'>,
    config: ConfigFields,
  ): CatalogComponent {
    const now = nowSeconds()
    const component: CatalogComponent = {
      ...fields,
      current_version: config.stage === 'published' ? 1 : null,
      user_id: null,
      created_at: now,
      updated_at: null,
      deleted_at: null,
    }
    this.#components.set(component.component_id, component)
    this.#configs.set(component.component_id, [])
    this.addConfig(component.component_id, config)
    return component
  }

  configs(id: string): ComponentConfig[] {
    return this.#configs.get(id) ?? []
  }

  config(id: string, version: number): ComponentConfig | undefined {
    return this.configs(id).find((config) => config.version === version)
  }

  addConfig(id: string, fields: ConfigFields): ComponentConfig {
    const configs = this.#configs.get(id) ?? []
    const version = Math.max(0, ...configs.map((config) => config.version)) + 1
    const config: ComponentConfig = {
      component_id: id,
      version,
      ...fields,
      created_at: nowSeconds(),
      updated_at: null,
    }
    configs.push(config)
    this.#configs.set(id, configs)
    return config
  }

  /** Moves the current pointer; only a published version may be current (see the routes). */
  setCurrent(id: string, version: number): 'missing' | 'draft' | 'moved' {
    const component = this.find(id)
    const config = this.config(id, version)
    if (component === undefined || config === undefined) return 'missing'
    if (config.stage !== 'published') return 'draft'
    component.current_version = version
    component.updated_at = nowSeconds()
    return 'moved'
  }

  deleteConfig(id: string, version: number): void {
    this.#configs.set(
      id,
      this.configs(id).filter((config) => config.version !== version),
    )
  }
}

/** `generate_id_from_name` (agno/utils/string.py) */
export function idFromName(name: string): string {
  return name === '' ? randomUUID() : name.toLowerCase().replaceAll(' ', '-').replaceAll('_', '-')
}

/** A row as the API shows it: `response_model_exclude_none`, so an unowned row has no `user_id`. */
export function withoutNulls(row: object): JsonObject {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null))
}
