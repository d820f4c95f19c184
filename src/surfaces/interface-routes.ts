import type { Config } from '../config/schema.js'
import type { InterfaceRoutes } from '../policy/catalogue/route-catalogue.js'

export type InterfacesConfig = Config['interfaces']

/** The interface endpoints a config mounts, for the route catalogue (ROUTE-4). */
export function interfaceRoutes(interfaces: InterfacesConfig): InterfaceRoutes {
  return {
    a2aPrefix: interfaces.a2a.enabled ? interfaces.a2a.prefix : undefined,
    aguiEndpoints: interfaces.agui.endpoints,
    mcpPath: interfaces.mcp.path,
  }
}

/** Routes that bypass authentication: MCP discovery documents and webhook interfaces. */
export function publicInterfaceRoutes(interfaces: InterfacesConfig): string[] {
  return [
    ...interfaces.mcp.public_routes,
    ...interfaces.webhooks.prefixes.map((prefix) => `${prefix}/**`),
  ]
}
