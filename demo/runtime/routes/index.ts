import { Router } from '../router.js'
import { A2A_PREFIXES, registerA2aRoutes } from './a2a.js'
import { registerCatalogRoutes } from './catalog.js'
import { registerCoreRoutes } from './core.js'
import { registerEchoRoutes } from './echo.js'
import { registerGenericRoutes } from './generic.js'
import { registerInterfaceRoutes } from './interfaces.js'
import { registerKnowledgeRoutes } from './knowledge.js'
import { registerMcpRoutes } from './mcp.js'
import { registerMcpOauthRoutes } from './mcp-oauth.js'
import { registerMemoryRoutes } from './memories.js'
import { registerRunActionRoutes } from './run-actions.js'
import { registerRunRoutes } from './runs.js'
import { registerSessionRoutes } from './sessions.js'
import { registerTestingRoutes } from './testing.js'

export function buildRouter(): Router {
  const router = new Router()
  registerCoreRoutes(router)
  registerCatalogRoutes(router)
  registerRunRoutes(router)
  registerRunActionRoutes(router)
  registerSessionRoutes(router)
  registerMemoryRoutes(router)
  registerKnowledgeRoutes(router)
  registerGenericRoutes(router)
  for (const prefix of A2A_PREFIXES) registerA2aRoutes(router, prefix)
  registerInterfaceRoutes(router)
  registerMcpRoutes(router)
  registerMcpOauthRoutes(router)
  registerEchoRoutes(router)
  registerTestingRoutes(router)
  return router
}
