import { migration001 } from './001-service-accounts.js'
import { migration002 } from './002-resource-owners.js'
import { migration003 } from './003-audit-events.js'
import { migration004 } from './004-account-addresses.js'
import type { Migration } from './migration.js'

export type { Migration } from './migration.js'
export { SERVICE_ACCOUNTS_TABLE } from './001-service-accounts.js'

/** Every migration, in the order it is applied. */
export const MIGRATIONS: readonly Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
]
