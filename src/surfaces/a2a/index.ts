import type { Config } from '../../config/schema.js'
import type { ForwardStage } from '../../http/stage.js'
import type { Grants } from '../../policy/grants.js'
import type { UpstreamLookup } from '../common/upstream-lookup.js'
import { a2aStage } from './a2a-stage.js'
import { ComponentCatalog } from './component-catalog.js'

/** The A2A interface (`interfaces.a2a`); undefined when it is off. */
export function a2aSurface(deps: {
  readonly settings: Config['interfaces']['a2a']
  readonly grants: Grants
  readonly userIsolation: boolean
  readonly lookup: UpstreamLookup
}): ForwardStage | undefined {
  const { settings, lookup } = deps
  if (!settings.enabled) return undefined
  return a2aStage({
    grants: deps.grants,
    userIsolation: deps.userIsolation,
    catalog: new ComponentCatalog({ lookup, ttlMs: settings.catalog_ttl_seconds * 1000 }),
    lookup,
  })
}
