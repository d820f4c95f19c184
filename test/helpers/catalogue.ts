import { Authorizer, type Authorization } from '../../src/policy/authorizer.js'
import { agentosCatalogue, type AgentOsLine } from '../../src/policy/catalogue/index.js'
import { RouteCatalogue, type InterfaceRoutes } from '../../src/policy/catalogue/route-catalogue.js'
import { Grants } from '../../src/policy/grants.js'
import type { Principal } from '../../src/principal.js'

export const NO_INTERFACES: InterfaceRoutes = {
  a2aPrefix: undefined,
  aguiEndpoints: [],
  mcpPath: '/mcp',
}

export interface CatalogueInput {
  readonly line?: AgentOsLine
  readonly scopeMappings?: Record<string, readonly string[]> | null
  readonly interfaces?: Partial<InterfaceRoutes>
}

/** A line's catalogue compiled as a config would compile it (2.9, no interfaces, by default). */
export function testCatalogue(input: CatalogueInput = {}): RouteCatalogue {
  return new RouteCatalogue({
    catalogue: agentosCatalogue(input.line ?? '2.9'),
    scopeMappings: input.scopeMappings ?? null,
    interfaces: { ...NO_INTERFACES, ...input.interfaces },
  })
}

export interface AuthorizerInput extends CatalogueInput {
  readonly adminScope: string
  readonly denyUnmapped?: boolean
  readonly userIsolation?: boolean
}

/** The authorizer over a catalogue, asked the way the pipeline asks it: one match per request. */
export class CatalogueAuthorizer {
  readonly catalogue: RouteCatalogue
  readonly authorizer: Authorizer

  constructor(input: AuthorizerInput) {
    this.catalogue = testCatalogue(input)
    this.authorizer = new Authorizer({
      grants: new Grants(input.adminScope),
      denyUnmapped: input.denyUnmapped ?? false,
      userIsolation: input.userIsolation ?? false,
    })
  }

  authorize(principal: Principal, method: string, path: string): Authorization {
    return this.authorizer.authorize(principal, this.catalogue.match(method, path))
  }
}
