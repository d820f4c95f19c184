export { throttleKey } from './client-key.js'
export { systemClock, type Clock } from './clock.js'
export { createServiceAccountStore } from './create-store.js'
export { FailedLookupThrottle, type FailedLookupThrottleOptions } from './failed-lookup-throttle.js'
export {
  createServiceAccountMetrics,
  type ServiceAccountMetrics,
  type VerificationOutcome,
} from './metrics.js'
export { MIGRATIONS, SERVICE_ACCOUNTS_TABLE, type Migration } from './migrations/index.js'
export { PgSqlClient } from './pg-client.js'
export { PgliteSqlClient } from './pglite-client.js'
export { ServiceAccountCache } from './service-account-cache.js'
export {
  isExpired,
  servicePrincipal,
  type ServiceAccountPrincipal,
} from './service-account-principal.js'
export {
  ServiceAccountVerifier,
  type ServiceAccountVerifierDeps,
} from './service-account-verifier.js'
export type { SqlClient, SqlQueryable, SqlRow } from './sql-client.js'
export { REVOCATION_CHANNEL, SqlServiceAccountStore } from './sql-store.js'
export { NameConflictError, StoreUnavailableError } from './store-errors.js'
export {
  SORTABLE_COLUMNS,
  type ListQuery,
  type ListResult,
  type MigrationResult,
  type NewServiceAccount,
  type RevocationEvent,
  type RevocationListener,
  type RevokeOutcome,
  type ServiceAccountRecord,
  type ServiceAccountStore,
  type SortColumn,
  type Unsubscribe,
} from './store.js'
export {
  DISPLAY_PREFIX_LENGTH,
  TOKEN_LENGTH,
  checkTokenShape,
  hashToken,
  mintToken,
  type MintedToken,
  type TokenShape,
} from './token-format.js'
export {
  INVALID_TOKEN_DETAIL,
  THROTTLED_DETAIL,
  UNAVAILABLE_DETAIL,
} from './verification-errors.js'
