import type { Config } from '../../config/schema.js'
import type { ForwardStage } from '../../http/stage.js'
import type { JsonBodyLimits } from '../common/request-json.js'
import { aguiStage } from './agui-stage.js'

/** The AG-UI endpoints (`interfaces.agui`); undefined when none is configured. */
export function aguiSurface(deps: {
  readonly settings: Config['interfaces']['agui']
  readonly bodyLimits: JsonBodyLimits
}): ForwardStage | undefined {
  const paths = new Set(deps.settings.endpoints.map(({ prefix }) => `${prefix}/agui`))
  return paths.size === 0 ? undefined : aguiStage({ paths, bodyLimits: deps.bodyLimits })
}
