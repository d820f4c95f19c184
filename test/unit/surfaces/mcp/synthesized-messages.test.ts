/**
 * Every JSON-RPC message the gateway writes itself on the MCP surface, checked against the
 * required fields of each protocol revision it supports (test/fixtures/mcp, written from the
 * spec's schema.ts files), so a revision the npm SDK does not speak yet is covered too (MCP-8).
 */
import t from 'tap'
import {
  jsonRpcError,
  NO_REQUEST_ID,
  toolErrorResult,
} from '../../../../src/surfaces/mcp/messages.js'
import {
  MCP_VERSIONS,
  ASSUMED_MCP_VERSION,
} from '../../../../src/surfaces/mcp/protocol-versions.js'
import { mergeLocalErrors } from '../../../../src/surfaces/mcp/response.js'
import { RUN_NOT_FOUND, SESSION_REQUIRED } from '../../../../src/surfaces/mcp/run-ownership.js'
import { AMBIGUOUS_TARGET } from '../../../../src/surfaces/mcp/tool-policy.js'
import { mcpRevisionSchemas } from '../../../helpers/mcp-schemas.js'

const schemas = mcpRevisionSchemas()

/** What a refused tool call is told (MCP-2 to MCP-4), by the ids clients use. */
const REFUSALS: readonly [unknown, string, string][] = [
  [1, 'run_agent', 'Insufficient permissions. Required scope(s): agents:run'],
  ['req-2', 'cancel_run', AMBIGUOUS_TARGET],
  [3, 'cancel_run', RUN_NOT_FOUND],
  [4, 'continue_run', SESSION_REQUIRED],
  [0, 'get_agentos_config', 'Insufficient permissions. Required scope(s): '],
]

void t.test('a fixture for each supported revision, and only those', async (t) => {
  t.same(
    schemas.map((schema) => schema.version),
    [...MCP_VERSIONS],
  )
})

for (const schema of schemas) {
  const version = schema.version as (typeof MCP_VERSIONS)[number]
  void t.test(`${version}: every synthesized message is valid`, async (t) => {
    for (const [id, tool, text] of REFUSALS) {
      const message = toolErrorResult(id, tool, text, version)
      t.same(schema.problems('CallToolResultResponse', message), [], `${tool}: ${text}`)
    }
    const parseError = jsonRpcError(NO_REQUEST_ID, -32700, 'Parse error')
    t.same(schema.problems('JSONRPCErrorResponse', parseError), [], 'the parse error')
    if (schema.has('JSONRPCBatchResponse')) {
      const upstream = [{ jsonrpc: '2.0', id: 9, result: { content: [], isError: false } }]
      const merged = mergeLocalErrors(
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(upstream)),
        },
        REFUSALS.map(([id, tool, text]) => toolErrorResult(id, tool, text, version)),
      )
      const batch: unknown = JSON.parse(merged.body.toString('utf8'))
      t.same(schema.problems('JSONRPCBatchResponse', batch), [], 'a batch with refusals merged in')
    }
  })

  // A request naming no version cannot be a 2026-07-28 one (it names it in the header and _meta).
  if (version < '2026-07-28') {
    void t.test(`${version}: the shape for a request naming no version is valid`, async (t) => {
      const message = toolErrorResult(1, 'run_agent', 'no', ASSUMED_MCP_VERSION)
      t.same(schema.problems('CallToolResultResponse', message), [])
    })
  }

  void t.test(`${version}: the fixture refuses what the revision refuses`, async (t) => {
    const nullId = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }
    t.not(schema.problems('JSONRPCErrorResponse', nullId), [], 'a null id is no RequestId')
    const noContent = { jsonrpc: '2.0', id: 1, result: { isError: true, resultType: 'complete' } }
    t.not(schema.problems('CallToolResultResponse', noContent), [], 'content is required')
    const untyped = { jsonrpc: '2.0', id: 1, result: { content: [], isError: true } }
    t.equal(
      schema.problems('CallToolResultResponse', untyped).length > 0,
      version >= '2026-07-28',
      'resultType is required from 2026-07-28 on',
    )
  })
}

void t.test('the earlier shape differs only by resultType', async (t) => {
  const older = toolErrorResult(5, 'run_agent', 'no', '2025-11-25')
  t.same(older, {
    jsonrpc: '2.0',
    id: 5,
    result: {
      content: [{ type: 'text', text: "Error calling tool 'run_agent': no" }],
      isError: true,
    },
  })
  t.equal(
    JSON.stringify(toolErrorResult(5, 'run_agent', 'no', '2026-07-28')),
    '{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"Error calling tool \'run_agent\': no"}],"isError":true,"resultType":"complete"}}',
    'keys in the SDK order: resultType last',
  )
})
