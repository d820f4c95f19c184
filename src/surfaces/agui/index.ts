import type { Config } from '../../config/schema.js'
import type { ForwardStage } from '../../http/stage.js'
import { aguiStage } from './agui-stage.js'

/** The AG-UI endpoints (`interfaces.agui`, in the route catalogue); undefined when none is configured. */
export function aguiSurface(deps: {
  readonly settings: Config['interfaces']['agui']
}): ForwardStage | undefined {
  if (deps.settings.endpoints.length === 0) return undefined
  return aguiStage()
}
