import type fc from 'fast-check'
import { credentialProperties } from './credentials.js'
import { pathProperties } from './path.js'
import { scopeProperties } from './scopes.js'

/** Every property of the security suite, by group: the seeded tests and scripts/fuzz.ts run these. */
export const PROPERTIES: Readonly<
  Record<string, Readonly<Record<string, fc.IPropertyWithHooks<unknown[]>>>>
> = {
  path: pathProperties,
  credentials: credentialProperties,
  scopes: scopeProperties,
}

/** The seed of the runs in the test suite; `scripts/fuzz.ts` takes any other. */
export const SUITE_SEED = 20_261_121
