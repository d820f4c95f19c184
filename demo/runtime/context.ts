import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ParsedBody } from './body.js'
import type { McpSessions } from './routes/mcp-protocol.js'
import type { DemoStore } from './store.js'
import type { AgentOsLine, RecordedRequest } from './types.js'
import type { ComponentCatalog } from './v3/catalog.js'
import type { JobQueue } from './v3/jobs.js'
import type { ScheduleStore } from './v3/schedules.js'

export interface RuntimeSettings {
  osId: string
  sseIntervalMs: number
  jsonLimitBytes: number
  instantiatedAt: number
  agentos: AgentOsLine
  agnoVersion: string
  /** the runtime's own address, known once it listens (the schedule executor calls it) */
  baseUrl: string
  /** what the schedule executor presents; an open AgentOS never checks it */
  internalServiceToken: string
}

export interface AppState {
  settings: RuntimeSettings
  store: DemoStore
  /** the 3.0 stores; empty and unrouted on the 2.9 line */
  jobs: JobQueue
  schedules: ScheduleStore
  catalog: ComponentCatalog
  /** the MCP server's sessions and the revision each negotiated */
  mcpSessions: McpSessions
}

export interface RequestContext {
  req: IncomingMessage
  res: ServerResponse
  method: string
  /** the routed path: decoded, trailing slashes stripped */
  path: string
  /** the route template that matched, e.g. `/agents/{agent_id}` */
  template: string
  params: Record<string, string>
  query: Record<string, string[]>
  body: ParsedBody
  recorded: RecordedRequest
  /** aborted when the client goes away before the response is finished */
  signal: AbortSignal
  app: AppState
}
