/** Public types of the demo AgentOS runtime (the gateway's upstream in tests and demos). */

export interface ReceivedFile {
  field: string
  filename: string
  size: number
  contentType: string
  /** hex SHA-256 of the file's bytes, computed while streaming */
  sha256: string
}

export interface RecordedRequest {
  method: string
  /** the path percent-decoded once (as Starlette sees it), trailing slashes NOT stripped, no query */
  path: string
  /** req.url exactly as received */
  rawUrl: string
  query: Record<string, string[]>
  headers: Record<string, string | string[] | undefined>
  rawHeaders: string[]
  /** urlencoded or multipart text fields, if the body was a form */
  form?: Record<string, string[]>
  /** multipart file parts, counted while streaming, never buffered */
  files?: ReceivedFile[]
  /** parsed JSON body when the content-type is JSON and the body parsed */
  json?: unknown
  bodyBytes: number
  /** hex SHA-256 of the raw body bytes as received */
  bodySha256: string
}

export interface RecordedWsConnection {
  path: string
  headers: Record<string, string | string[] | undefined>
  /** subprotocols offered by the client, in order */
  protocols: string[]
  /** the subprotocol the server selected, '' when none */
  selectedProtocol: string
  /** frames received from the client: strings for text frames, Buffers for binary ones */
  received: (string | Buffer)[]
}

export interface AgentRuntime {
  /** http://host:port */
  url: string
  /** ws://host:port */
  wsUrl: string
  port: number
  /**
   * every HTTP request whose body was fully read, in completion order; not the gateway's own
   * reads of the AgentOS version (marked X-Portcullis-Probe), which come at times of its choosing
   */
  requests: RecordedRequest[]
  /** count of those HTTP requests whose headers arrived (including ones whose body never completed) */
  readonly started: number
  wsConnections: RecordedWsConnection[]
  /** forget recorded requests, the started counter and ws connections (not the data store) */
  clear(): void
  /** close the server, all sockets and ws connections promptly */
  close(): Promise<void>
}

/** The AgentOS release line the runtime behaves as: 2.9.0, or 3.0.0a3. */
export type AgentOsLine = '2.9' | '3.0'

export interface AgentRuntimeOptions {
  /** default '2.9' */
  agentos?: AgentOsLine
  /** what `/info` reports as `agno_version`; default '2.9.0' or '3.0.0a3' after the line */
  agnoVersion?: string
  /** default 127.0.0.1 */
  host?: string
  /** default 0 (ephemeral) */
  port?: number
  /** delay between SSE events of a streamed run (and between ws workflow events), default 50 */
  sseIntervalMs?: number
  /** default 'demo-os' */
  osId?: string
  /** JSON bodies larger than this are answered 413, default 1 MiB */
  jsonLimitBytes?: number
}
