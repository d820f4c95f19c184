export {
  AGENTOS_ADMIN_SCOPE,
  DEFAULT_TOKEN_SCOPES,
  invalidScopes,
  parseScope,
  privilegedScopes,
  splitScope,
  ungrantableScopes,
  type ParsedScope,
  type ScopeParts,
} from './scope.js'
export { scopeCovers } from './scope-match.js'
export {
  agentosPatternToTemplate,
  DEFAULT_SCOPE_MAPPINGS,
  type DefaultScopeMapping,
} from './default-scope-mappings.js'
export { templateProblem, type TemplateSegment } from './route-template.js'
export {
  defaultRouteEntries,
  mappingKeyProblem,
  parseMappingKey,
  RouteTable,
  type MappingKey,
  type RouteEntry,
  type RouteMatch,
  type RouteSource,
  type RouteTableConfig,
} from './route-table.js'
export {
  isResourceFamily,
  resourceContext,
  type ResourceContext,
  type ResourceFamily,
} from './resource-context.js'
export { accessibleIds, satisfies, satisfiesAll, type AccessibleIds } from './grants.js'
export { routeGate, routeGateDenial, type RouteGate } from './route-gates.js'
export {
  Authorizer,
  UNMAPPED_ROUTE_DENIAL,
  type Authorization,
  type AuthorizerOptions,
} from './authorizer.js'
