import type { BufferedResponse } from '../../upstream/upstream-client.js'
import { isJsonObject, objectMember, parseJson } from '../common/json.js'
import type { McpProtocolVersions } from './protocol-versions.js'
import { sessionIdOf } from './protocol-versions.js'
import { responseHeader } from './response.js'

/** A client's `initialize` request: its id and the version it asks for. */
export interface InitializeRequest {
  readonly id: unknown
  readonly requested: string | undefined
}

/** The body's `initialize` request, when it is one (the lifecycle never batches it). */
export function initializeRequest(body: unknown): InitializeRequest | undefined {
  if (!isJsonObject(body) || body['method'] !== 'initialize' || !('id' in body)) return undefined
  const requested = objectMember(body, 'params')?.['protocolVersion']
  return { id: body['id'], requested: typeof requested === 'string' ? requested : undefined }
}

/** The JSON-RPC messages of an answer: a JSON body, or the `data` of each event of a stream. */
function answerMessages(response: BufferedResponse): unknown[] {
  const type = responseHeader(response, 'content-type').toLowerCase()
  if (type.startsWith('application/json')) {
    const parsed = parseJson(response.body)
    return parsed === undefined ? [] : [parsed.value]
  }
  if (!type.startsWith('text/event-stream')) return []
  const messages: unknown[] = []
  for (const event of response.body.toString('utf8').split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n')
    const parsed = data === '' ? undefined : parseJson(Buffer.from(data))
    if (parsed !== undefined) messages.push(parsed.value)
  }
  return messages
}

/** The version the server chose in its answer to `request`, if the answer can be read. */
function negotiatedVersion(response: BufferedResponse, request: InitializeRequest) {
  for (const message of answerMessages(response)) {
    if (!isJsonObject(message) || message['id'] !== request.id) continue
    const version = objectMember(message, 'result')?.['protocolVersion']
    if (typeof version === 'string') return version
  }
  return undefined
}

/**
 * Remembers what the session the upstream opens with this answer speaks: the version its answer
 * chose (the server decides), else the one the client asked for when the answer is unreadable
 * (compressed, cut). An answer without a session (a stateless server, a refusal) teaches nothing:
 * such clients name their version in every request. The answer goes to the client unchanged.
 */
export function learnFromInitialize(
  versions: McpProtocolVersions,
  request: InitializeRequest,
): (response: BufferedResponse) => BufferedResponse {
  return (response) => {
    const session = sessionIdOf(response.headers['mcp-session-id'])
    if (response.status !== 200 || session === undefined) return response
    const version = negotiatedVersion(response, request) ?? request.requested
    if (version !== undefined) versions.remember(session, version)
    return response
  }
}
