import type { Config } from './schema.js'

/**
 * Keys that are bound when the process starts (listeners, the upstream pool, the store and its
 * verifier): a reload reports their changes and keeps the running values.
 */
const RESTART_ONLY_SERVER_KEYS = [
  'host',
  'port',
  'admin_host',
  'admin_port',
  'headers_timeout_ms',
  'request_timeout_ms',
  'keep_alive_timeout_ms',
  'max_header_bytes',
  'max_headers_count',
  'max_websocket_connections',
  'max_websocket_connections_per_client',
  'shutdown_grace_ms',
] as const satisfies readonly (keyof Config['server'])[]
const RESTART_ONLY_SECTIONS = [
  'upstream',
  'database',
  'service_accounts',
  'audit',
] as const satisfies readonly (keyof Config)[]

/** The restart-only keys whose value differs between `running` and `next`. */
export function restartOnlyChanges(running: Config, next: Config): string[] {
  const changed: string[] = []
  for (const key of RESTART_ONLY_SERVER_KEYS) {
    if (running.server[key] !== next.server[key]) changed.push(`server.${key}`)
  }
  for (const section of RESTART_ONLY_SECTIONS) {
    for (const key of new Set([...Object.keys(running[section]), ...Object.keys(next[section])])) {
      const before = (running[section] as Record<string, unknown>)[key]
      const after = (next[section] as Record<string, unknown>)[key]
      if (JSON.stringify(before) !== JSON.stringify(after)) changed.push(`${section}.${key}`)
    }
  }
  return changed
}

/** `next`, with every restart-only key taken from `running`. */
export function withRestartOnlyKeysOf(running: Config, next: Config): Config {
  const server = { ...next.server }
  for (const key of RESTART_ONLY_SERVER_KEYS) Object.assign(server, { [key]: running.server[key] })
  return Object.freeze({
    ...next,
    server: Object.freeze(server),
    upstream: running.upstream,
    database: running.database,
    service_accounts: running.service_accounts,
    audit: running.audit,
  })
}
