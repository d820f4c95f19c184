import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ParsedBody } from './body.js'
import type { DemoStore } from './store.js'
import type { RecordedRequest } from './types.js'

export interface RuntimeSettings {
  osId: string
  sseIntervalMs: number
  jsonLimitBytes: number
  instantiatedAt: number
}

export interface AppState {
  settings: RuntimeSettings
  store: DemoStore
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
