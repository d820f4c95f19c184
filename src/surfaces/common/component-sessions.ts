import { SINGULAR, type ResourceFamily } from '../../policy/catalogue/route-facts.js'

/**
 * How the upstream's session API names a family: the `type` query value (`agent`) and the member
 * that holds the component id in a session (`agent_id`).
 */
export function sessionType(family: ResourceFamily): readonly [type: string, idKey: string] {
  const singular = SINGULAR[family]
  return [singular, `${singular}_id`]
}
