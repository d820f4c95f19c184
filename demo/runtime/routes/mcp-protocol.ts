/**
 * Which MCP revision a request speaks, as AgentOS's MCP server (the MCP Python SDK) decides it:
 * `initialize` negotiates a 2025-era revision per session; from 2026-07-28 there is no handshake
 * and every request names its revision (header and `_meta`); `server/discover` lists them.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { isJsonObject, stringField, type JsonObject } from '../params.js'

/** Revisions an `initialize` can agree on; the SDK answers its newest for any other request. */
export const HANDSHAKE_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']
export const NEWEST_HANDSHAKE_VERSION = '2025-11-25'
/** The first revision without a handshake (`server/discover` plus a version on every request). */
const FIRST_DISCOVERY_VERSION = '2026-07-28'
export const DISCOVERY_VERSIONS = [FIRST_DISCOVERY_VERSION]
/** What a request that names no revision is taken to speak (the transport's rule). */
const ASSUMED_VERSION = '2025-03-26'

export function isDiscoveryVersion(version: string): boolean {
  return version >= FIRST_DISCOVERY_VERSION
}

/** The revision an `initialize` asking for `requested` settles on. */
export function negotiate(requested: string | undefined): string {
  return requested !== undefined && HANDSHAKE_VERSIONS.includes(requested)
    ? requested
    : NEWEST_HANDSHAKE_VERSION
}

function metaVersion(message: unknown): string | undefined {
  const params = isJsonObject(message) ? message['params'] : undefined
  const meta = isJsonObject(params) ? params['_meta'] : undefined
  return isJsonObject(meta)
    ? stringField(meta, 'io.modelcontextprotocol/protocolVersion')
    : undefined
}

/** Each session's negotiated revision, by `Mcp-Session-Id`. */
export class McpSessions {
  readonly #versions = new Map<string, string>()

  open(id: string, version: string): void {
    this.#versions.set(id, version)
  }

  close(id: string): boolean {
    return this.#versions.delete(id)
  }

  /** The header, else the message's `_meta`, else the session's, else the assumed revision. */
  versionOf(headers: IncomingHttpHeaders, message: unknown): string {
    const header = headers['mcp-protocol-version']
    const session = headers['mcp-session-id']
    return (
      (typeof header === 'string' ? header : undefined) ??
      metaVersion(message) ??
      (typeof session === 'string' ? this.#versions.get(session) : undefined) ??
      ASSUMED_VERSION
    )
  }
}

/**
 * A result as the SDK writes it in `version`: from 2026-07-28 every result is tagged
 * `resultType: "complete"`, and the cacheable ones (discovery, lists) carry the don't-cache pair.
 */
export function shapedResult(version: string, result: JsonObject, cacheable = false): JsonObject {
  if (!isDiscoveryVersion(version)) return result
  const caching = cacheable ? { ttlMs: 0, cacheScope: 'private' } : {}
  return { ...result, ...caching, resultType: 'complete' }
}
