import type { IncomingHttpHeaders } from 'node:http'
import { BoundedCache } from '../../bounded-cache.js'
import type { Logger } from '../../logger.js'
import { isJsonObject, objectMember } from '../common/json.js'

/**
 * The MCP protocol revisions whose messages the gateway writes, oldest first (MCP-8). Each has its
 * own row in docs/surfaces.md; `2024-11-05` is answered as `2025-03-26` (the same result shapes).
 */
export const MCP_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const
export type McpVersion = (typeof MCP_VERSIONS)[number]

export const NEWEST_MCP_VERSION: McpVersion = '2026-07-28'

/**
 * What a request naming no version speaks: the streamable-HTTP transport's rule (a server with no
 * other way to tell SHOULD assume 2025-03-26), which is also what AgentOS's SDK assumes. It is
 * safe: every client from 2025-06-18 on MUST send its version in `MCP-Protocol-Version`, and a
 * 2026-07-28 request also names it in `_meta`, so only a 2025-03-26-era client names none, and
 * the tool-error shape is the same for every revision before 2026-07-28.
 */
export const ASSUMED_MCP_VERSION: McpVersion = '2025-03-26'

/** `_meta` key of a 2026-07-28 request naming its version (it must equal the header). */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion'

/** Revisions are ISO dates; anything else is no version. */
const REVISION = /^\d{4}-\d{2}-\d{2}$/

export interface ResolvedVersion {
  /** The known revision whose shapes apply. */
  readonly version: McpVersion
  /** The client named a revision newer than the newest known. */
  readonly newer: boolean
}

/**
 * The known revision a version string is answered in: itself when known, else the newest known
 * revision before it (a draft between two releases speaks the older one's shapes), the oldest
 * for older ones, the newest for newer ones (flagged). Undefined for a string that is no revision.
 */
export function resolveMcpVersion(value: string): ResolvedVersion | undefined {
  if (!REVISION.test(value)) return undefined
  if (value > NEWEST_MCP_VERSION) return { version: NEWEST_MCP_VERSION, newer: true }
  const known = MCP_VERSIONS.filter((version) => version <= value).at(-1) ?? MCP_VERSIONS[0]
  return { version: known, newer: false }
}

/** Whether results of this revision carry `resultType` (required from 2026-07-28). */
export function resultsCarryType(version: McpVersion): boolean {
  return version >= '2026-07-28'
}

/** A session id as the transport allows it (visible ASCII), else undefined. */
export function sessionIdOf(value: unknown): string | undefined {
  const id = Array.isArray(value) ? undefined : value
  return typeof id === 'string' && /^[\x21-\x7e]{1,256}$/.test(id) ? id : undefined
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return typeof value === 'string' ? value.trim() : undefined
}

/** The version a 2026-07-28 message names in `params._meta`. */
function metaVersion(body: unknown): string | undefined {
  const first: unknown = Array.isArray(body) ? body[0] : body
  if (!isJsonObject(first)) return undefined
  const version = objectMember(objectMember(first, 'params'), '_meta')?.[PROTOCOL_VERSION_META_KEY]
  return typeof version === 'string' ? version : undefined
}

/** Sessions remembered at most (oldest dropped first) and how long one is kept unused. */
const SESSION_LIMIT = 10_000
const SESSION_TTL_MS = 24 * 60 * 60 * 1000
/** Distinct newer versions warned about; beyond it a client cycling versions cannot flood logs. */
const WARNED_LIMIT = 32

/**
 * The protocol version each MCP exchange speaks, so the messages the gateway writes itself are
 * valid in it (MCP-8). A request's version is its `MCP-Protocol-Version` header, else the
 * version its message names in `_meta`, else the one negotiated in its session's `initialize`
 * exchange (learned from the answer relayed to the client, keyed by `Mcp-Session-Id`; 2025-03-26
 * clients send no header), else 2025-03-26. Lives as long as the process, across config reloads.
 */
export class McpProtocolVersions {
  readonly #sessions = new BoundedCache<string, string>({
    max: SESSION_LIMIT,
    ttlMs: SESSION_TTL_MS,
    refreshOnGet: true,
  })
  readonly #warned = new Set<string>()
  readonly #logger: Logger

  constructor(logger: Logger) {
    this.#logger = logger
  }

  /** The revision a request's synthesized messages are written in. */
  versionOf(headers: IncomingHttpHeaders, body: unknown): McpVersion {
    const session = sessionIdOf(headers['mcp-session-id'])
    const named =
      headerValue(headers, 'mcp-protocol-version') ??
      metaVersion(body) ??
      (session === undefined ? undefined : this.#sessions.get(session))
    const resolved = named === undefined ? undefined : resolveMcpVersion(named)
    if (named === undefined || resolved === undefined) return ASSUMED_MCP_VERSION
    if (resolved.newer) this.#warnOnce(named)
    return resolved.version
  }

  /** Records what a session negotiated; a value that is no revision is not kept. */
  remember(session: string, version: string): void {
    if (REVISION.test(version)) this.#sessions.set(session, version)
  }

  /** The client ended the session (DELETE). */
  forget(session: string): void {
    this.#sessions.delete(session)
  }

  #warnOnce(version: string): void {
    if (this.#warned.has(version) || this.#warned.size >= WARNED_LIMIT) return
    this.#warned.add(version)
    this.#logger.warn(
      { mcp_protocol_version: version, answered_as: NEWEST_MCP_VERSION },
      'MCP client speaks a protocol version newer than the newest known; answering in the newest known shapes',
    )
  }
}
