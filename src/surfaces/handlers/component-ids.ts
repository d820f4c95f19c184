import { createHash, randomUUID } from 'node:crypto'
import { isJsonObject } from '../common/json.js'

/** agno's `generate_id_from_name` (agno/utils/string.py): an empty name gets a random id. */
export function generateIdFromName(name: string): string {
  if (name === '') return randomUUID()
  return name.toLowerCase().replaceAll(' ', '-').replaceAll('_', '-')
}

/**
 * The id AgentOS 3.0 gives a component a scoped caller creates without a `component_id`
 * (V3-COMP-3): the name's id, then the first 8 hex digits of the SHA-256 of the caller's scoped
 * id, so that two users' components of the same name do not collide.
 */
export function ownerScopedComponentId(name: string, scoped: string): string {
  const suffix = createHash('sha256').update(scoped, 'utf8').digest('hex').slice(0, 8)
  return `${generateIdFromName(name)}-${suffix}`
}

const REFERENCE_KEYS: ReadonlySet<string> = new Set(['agent_id', 'team_id', 'workflow_id'])

/**
 * The components a config names (V3-COMP-2): every string under `agent_id`, `team_id` or
 * `workflow_id`, at any depth, in document order and without repeats.
 */
export function referencedComponents(config: unknown): string[] {
  const found = new Set<string>()
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item)
      return
    }
    if (!isJsonObject(value)) return
    for (const [key, member] of Object.entries(value)) {
      if (REFERENCE_KEYS.has(key) && typeof member === 'string') found.add(member)
      else visit(member)
    }
  }
  visit(config)
  return [...found]
}
