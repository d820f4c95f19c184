import { z } from 'zod'
import { auditSchema } from './sections/audit.js'
import { authSchema } from './sections/auth.js'
import { identitySchema } from './sections/identity.js'
import { interfacesSchema } from './sections/interfaces.js'
import { corsSchema, loggingSchema } from './sections/logging.js'
import { databaseSchema, serviceAccountsSchema } from './sections/service-accounts.js'
import { serverSchema, upstreamSchema } from './sections/server.js'

/** The single schema of the YAML config file: defaults and descriptions live here and only here. */
export const configSchema = z.strictObject({
  server: serverSchema,
  upstream: upstreamSchema,
  auth: authSchema,
  service_accounts: serviceAccountsSchema,
  database: databaseSchema,
  audit: auditSchema,
  cors: corsSchema,
  logging: loggingSchema,
  identity: identitySchema,
  interfaces: interfacesSchema,
})

/** The config as validated, before secrets are resolved. */
export type RawConfig = z.output<typeof configSchema>

type Resolved<T> = T extends { from_env: string } | { from_file: string }
  ? never
  : T extends readonly (infer U)[]
    ? readonly Resolved<U>[]
    : T extends object
      ? { readonly [K in keyof T]: Resolved<T[K]> }
      : T

/** The frozen config the gateway runs with: every secret reference replaced by its value. */
export type Config = Resolved<RawConfig>
