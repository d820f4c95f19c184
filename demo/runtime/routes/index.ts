import { Router } from '../router.js'
import type { AgentOsLine } from '../types.js'
import { A2A_PREFIXES, registerA2aDispatchRoutes, registerA2aRoutes } from './a2a.js'
import { registerCatalogRoutes } from './catalog.js'
import { home, homeV3, registerCoreRoutes, registerModelsRoute } from './core.js'
import { registerEchoRoutes } from './echo.js'
import { COMPONENT_ROUTES, registerGenericRoutes, SCHEDULE_ROUTES } from './generic.js'
import { registerInterfaceRoutes } from './interfaces.js'
import { registerKnowledgeRoutes } from './knowledge.js'
import { registerMcpRoutes } from './mcp.js'
import { registerMcpOauthRoutes } from './mcp-oauth.js'
import { registerMemoryRoutes } from './memories.js'
import { registerRunActionRoutes } from './run-actions.js'
import { registerRunRoutes } from './runs.js'
import { registerSessionRoutes } from './sessions.js'
import { registerTestingRoutes } from './testing.js'
import { registerComponentRoutes } from './v3/components.js'
import { registerMediaRoutes } from './v3/media.js'
import { registerQueueRoutes } from './v3/queue.js'
import { createRunV3, stampedVersionResolves } from './v3/runs.js'
import { registerScheduleRoutes } from './v3/schedules.js'
import { registerWorkflowReadV3 } from './v3/workflow-read.js'

/** The routes of one AgentOS line: everything that differs between 2.9 and 3.0 is chosen here. */
export function buildRouter(line: AgentOsLine): Router {
  const v3 = line === '3.0'
  const router = new Router()
  registerCoreRoutes(router, v3 ? homeV3 : home)
  if (!v3) registerModelsRoute(router)
  if (v3) registerWorkflowReadV3(router)
  registerCatalogRoutes(router)
  if (v3) registerRunRoutes(router, createRunV3)
  else registerRunRoutes(router)
  registerRunActionRoutes(router, v3 ? stampedVersionResolves : undefined)
  registerSessionRoutes(router)
  registerMemoryRoutes(router)
  registerKnowledgeRoutes(router)
  registerGenericRoutes(router)
  if (v3) {
    registerScheduleRoutes(router)
    registerComponentRoutes(router)
    registerQueueRoutes(router)
    registerMediaRoutes(router)
  } else {
    registerGenericRoutes(router, [...SCHEDULE_ROUTES, ...COMPONENT_ROUTES])
  }
  for (const prefix of A2A_PREFIXES) {
    registerA2aRoutes(router, prefix)
    if (!v3) registerA2aDispatchRoutes(router, prefix)
  }
  registerInterfaceRoutes(router)
  registerMcpRoutes(router)
  registerMcpOauthRoutes(router)
  registerEchoRoutes(router)
  registerTestingRoutes(router)
  return router
}
