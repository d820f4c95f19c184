import { isJsonObject, objectMember, type JsonObject } from '../common/json.js'
import { resultsCarryType, type McpVersion } from './protocol-versions.js'
import type { ToolDecision } from './tool-policy.js'

export interface McpInspection {
  /** A batch (JSON array) rather than one message. */
  readonly batch: boolean
  /** Whether anything was refused or rewritten; false: forward the client's body as is. */
  readonly changed: boolean
  /** What still goes upstream; undefined when nothing does. */
  readonly forward: unknown
  /** Local answers (tool-error results) for refused calls that expect a response. */
  readonly errors: readonly JsonObject[]
}

export type ToolDecider = (name: string, args: JsonObject) => Promise<ToolDecision>

/**
 * The id of an error answering no readable request, as the MCP SDK's streamable-HTTP transport
 * writes it: a string, which every revision's `RequestId` accepts (`null` is valid in none).
 */
export const NO_REQUEST_ID = 'server-error'

/** A JSON-RPC error response; the same shape in every revision (MCP-8). */
export function jsonRpcError(id: string | number, code: number, message: string): JsonObject {
  return { jsonrpc: '2.0', id, error: { code, message } }
}

/**
 * What AgentOS's MCP server (fastmcp over the MCP SDK) answers when a tool raises: a successful
 * JSON-RPC response holding a `CallToolResult` with `isError`, the text prefixed by fastmcp
 * (`Error calling tool {name!r}: …`). Clients raise a ToolError for it and keep the session.
 * Keys in the SDK's serialization order (MCP-1); from 2026-07-28 the result carries
 * `resultType: "complete"`, which that revision requires of every result (MCP-8).
 */
export function toolErrorResult(
  id: unknown,
  tool: string,
  message: string,
  version: McpVersion,
): JsonObject {
  // Python's repr of the name; only built-in tools (plain identifiers) are refused here.
  const text = `Error calling tool '${tool}': ${message}`
  const result: JsonObject = { content: [{ type: 'text', text }], isError: true }
  if (resultsCarryType(version)) result['resultType'] = 'complete'
  return { jsonrpc: '2.0', id, result }
}

/**
 * Applies the tool policy to every `tools/call` of a JSON-RPC message or batch. A refused call
 * is taken out and answered locally (nothing, for a notification) in the exchange's version,
 * asked for only then; an allowed one may have its arguments rewritten. Other messages pass
 * untouched.
 */
export async function inspectMcpBody(
  value: unknown,
  decide: ToolDecider,
  versionOf: () => McpVersion,
): Promise<McpInspection> {
  const batch = Array.isArray(value)
  const messages: readonly unknown[] = Array.isArray(value) ? value : [value]
  const kept: unknown[] = []
  const errors: JsonObject[] = []
  let changed = false
  for (const message of messages) {
    const call = toolCall(message)
    if (call === undefined) {
      kept.push(message)
      continue
    }
    const decision = await decide(call.name, call.args)
    if (decision.kind === 'deny') {
      changed = true
      if ('id' in call.message) {
        errors.push(toolErrorResult(call.message['id'], call.name, decision.message, versionOf()))
      }
      continue
    }
    if (!decision.changed) {
      kept.push(message)
      continue
    }
    changed = true
    kept.push({ ...call.message, params: { ...call.params, arguments: decision.args } })
  }
  const forward = batch ? (kept.length > 0 ? kept : undefined) : kept[0]
  return { batch, changed, forward, errors }
}

interface ToolCall {
  readonly message: JsonObject
  readonly params: JsonObject
  readonly name: string
  readonly args: JsonObject
}

function toolCall(message: unknown): ToolCall | undefined {
  if (!isJsonObject(message) || message['method'] !== 'tools/call') return undefined
  const params = objectMember(message, 'params')
  const name = params?.['name']
  if (params === undefined || typeof name !== 'string') return undefined
  // Arguments that are not an object fail upstream; they are still checked as an empty set.
  const args = objectMember(params, 'arguments') ?? {}
  return { message, params, name, args }
}
