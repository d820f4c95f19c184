import { AGENTOS_ADMIN_SCOPE, DEFAULT_ADMIN_SCOPE } from '../scope.js'
import type { AgentOsCatalogue } from './agentos-catalogue.js'

/**
 * Every scope one AgentOS line gives a meaning to: those its routes require (the default table,
 * the A2A interface; AG-UI endpoints require the run scopes the table has), the scheduler's and
 * the admin scopes. What `portcullis tokens create` checks requested scopes against; AgentOS
 * itself, and the mint API, accept any scope of the grammar.
 */
export function definedScopes(catalogue: AgentOsCatalogue): readonly string[] {
  const scopes = new Set<string>([DEFAULT_ADMIN_SCOPE, AGENTOS_ADMIN_SCOPE])
  for (const [, , required] of catalogue.scopeMappings)
    for (const scope of required) scopes.add(scope)
  for (const scope of catalogue.schedulerScopes) scopes.add(scope)
  for (const route of catalogue.a2a.familyRoutes)
    for (const family of route.families) scopes.add(`${family}:${route.action}`)
  return [...scopes].sort()
}
