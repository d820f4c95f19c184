import type { Config } from '../../config/schema.js'
import type { ForwardStage } from '../../http/stage.js'
import type { Grants } from '../../policy/grants.js'
import type { RouteTable } from '../../policy/route-table.js'
import type { ShapeRefusal } from '../../http/refusal-response.js'
import type { UpstreamLookup } from '../common/upstream-lookup.js'
import { McpHostGuard } from './host-guard.js'
import { mcpChallenge } from './challenge.js'
import { mcpStage } from './mcp-stage.js'
import type { McpProtocolVersions } from './protocol-versions.js'
import { McpToolPolicy } from './tool-policy.js'

export interface McpSurface {
  /** The OAuth challenge on refusals, when metadata is configured. */
  readonly challenge: ShapeRefusal | undefined
  /** After identity enforcement: the host guard and the per-tool gate. */
  readonly stage: ForwardStage
}

/** The MCP endpoint (`interfaces.mcp`). */
export function mcpSurface(deps: {
  readonly settings: Config['interfaces']['mcp']
  /** No JWT source and no security key. */
  readonly open: boolean
  readonly grants: Grants
  readonly userIsolation: boolean
  readonly lookup: UpstreamLookup
  /** The AgentOS line's default table (tools are checked against it alone). */
  readonly defaultScopes: RouteTable
  /** The process's record of what each MCP exchange speaks. */
  readonly versions: McpProtocolVersions
}): McpSurface {
  const { settings, grants, userIsolation, lookup, defaultScopes } = deps
  return {
    challenge:
      settings.resource_metadata_url === null
        ? undefined
        : mcpChallenge(settings.resource_metadata_url),
    stage: mcpStage({
      inspect: settings.enabled,
      policy: new McpToolPolicy({ defaultScopes, grants, userIsolation, lookup }),
      guard: new McpHostGuard({
        open: deps.open,
        allowedHosts: settings.allowed_hosts,
        allowedOrigins: settings.allowed_origins,
      }),
      versions: deps.versions,
    }),
  }
}
