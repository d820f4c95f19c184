import { isJsonObject, objectMember, type JsonObject } from '../common/json.js'
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

export function jsonRpcError(id: unknown, code: number, message: string): JsonObject {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } }
}

/**
 * What AgentOS's MCP server (fastmcp over the MCP SDK) answers when a tool raises: a successful
 * JSON-RPC response holding a `CallToolResult` with `isError`, the text prefixed by fastmcp
 * (`Error calling tool {name!r}: …`). Clients raise a ToolError for it and keep the session.
 * Keys in the SDK's serialization order (MCP-1).
 */
export function toolErrorResult(id: unknown, tool: string, message: string): JsonObject {
  // Python's repr of the name; only built-in tools (plain identifiers) are refused here.
  const text = `Error calling tool '${tool}': ${message}`
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
}

/**
 * Applies the tool policy to every `tools/call` of a JSON-RPC message or batch. A refused call
 * is taken out and answered locally (nothing, for a notification); an allowed one may have its
 * arguments rewritten. Other messages pass untouched.
 */
export async function inspectMcpBody(value: unknown, decide: ToolDecider): Promise<McpInspection> {
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
        errors.push(toolErrorResult(call.message['id'], call.name, decision.message))
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
