/**
 * Gateways sharing one PostgreSQL database, as replicas behind a load balancer, for the
 * service-account integration tests. One PostgreSQL server per test file.
 */
import type { ConfigInput, TestGateway } from '../../helpers/gateway.js'
import { metricValue } from '../../helpers/metrics.js'

export { pollUntil } from '../../conformance/service-accounts/harness.js'

/** Config for a replica on `url`: service accounts on (cache TTL 30 unless told), short timeouts. */
export function replicaSection(
  url: string,
  serviceAccounts: ConfigInput = {},
  more: ConfigInput = {},
): ConfigInput {
  return {
    service_accounts: { enabled: true, cache_ttl_seconds: 30, ...serviceAccounts },
    database: { url, pool_max: 4, connect_timeout_ms: 1_000, query_timeout_ms: 1_000 },
    logging: { level: 'trace' },
    ...more,
  }
}

/** A counter's current value on a gateway (0 when the series does not exist yet). */
export async function counter(
  gateway: TestGateway,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return metricValue(await gateway.metrics(), name, labels) ?? 0
}

/** How many times the store ran `operation` on this gateway (its latency histogram's count). */
export function storeCalls(gateway: TestGateway, operation: string): Promise<number> {
  return counter(gateway, 'portcullis_service_account_store_query_duration_seconds_count', {
    operation,
  })
}

/** Resolves once `gateway` logged a line matching `pattern`, or rejects after `timeoutMs`. */
export async function logged(
  gateway: TestGateway,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!gateway.logs.lines.some((line) => pattern.test(line))) {
    if (Date.now() > deadline) throw new Error(`no log line matching ${String(pattern)}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
