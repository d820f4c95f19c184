import { closest } from '../closest.js'
import { DEFAULT_ADMIN_SCOPE, parseScope } from './scope.js'

/**
 * One warning per requested scope that none of `known` (definedScopes(), or another line of
 * AgentOS's routes) gives a meaning to: `agents:wrte is not a scope AgentOS defines; did you mean
 * agents:write?`. A per-resource scope counts by its global form (`agents:a1:run` as
 * `agents:run`). Scopes outside the grammar are left to the API, which refuses them; unknown
 * scopes are still minted, as AgentOS mints them, so this is advice only.
 */
export function undefinedScopeWarnings(
  requested: readonly string[],
  known: readonly string[],
): string[] {
  const defined = new Set(known)
  const actions = actionsByResource(known)
  const warnings: string[] = []
  for (const scope of requested) {
    if (defined.has(scope)) continue
    const parsed = parseScope(scope, DEFAULT_ADMIN_SCOPE)
    if (parsed.kind === 'admin' || parsed.kind === 'unknown') continue
    if (defined.has(`${parsed.resource}:${parsed.action}`)) continue
    const meant = likelyMeant(parsed.resource, parsed.action, actions)
    const suggestion =
      meant === undefined
        ? ''
        : parsed.kind === 'global'
          ? `; did you mean ${meant.resource}:${meant.action}?`
          : `; did you mean ${meant.resource}:${parsed.id}:${meant.action}?`
    warnings.push(`${scope} is not a scope AgentOS defines${suggestion}`)
  }
  return warnings
}

function actionsByResource(known: readonly string[]): Map<string, string[]> {
  const actions = new Map<string, string[]>()
  for (const scope of known) {
    const [resource, action, ...rest] = scope.split(':')
    if (resource === undefined || action === undefined || rest.length > 0) continue
    actions.set(resource, [...(actions.get(resource) ?? []), action])
  }
  return actions
}

/**
 * One typo at a time: a known resource with a mistyped action (`agents:wrte`), or a known action
 * on a mistyped resource (`agnets:run`); never a different word (`reports:read` is not
 * `memories:read`).
 */
function likelyMeant(
  resource: string,
  action: string,
  actions: ReadonlyMap<string, readonly string[]>,
): { resource: string; action: string } | undefined {
  const ofResource = actions.get(resource)
  if (ofResource !== undefined) {
    const meant = closest(action, ofResource)
    return meant === undefined ? undefined : { resource, action: meant }
  }
  const resources = [...actions].filter(([, known]) => known.includes(action)).map(([name]) => name)
  const meant = closest(resource, resources)
  return meant === undefined ? undefined : { resource: meant, action }
}
