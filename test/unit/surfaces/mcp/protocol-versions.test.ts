import t from 'tap'
import {
  initializeRequest,
  learnFromInitialize,
} from '../../../../src/surfaces/mcp/initialize-exchange.js'
import {
  McpProtocolVersions,
  resolveMcpVersion,
  sessionIdOf,
  ASSUMED_MCP_VERSION,
} from '../../../../src/surfaces/mcp/protocol-versions.js'
import type { BufferedResponse } from '../../../../src/upstream/upstream-client.js'
import { createLogger } from '../../../../src/logger.js'
import { LogCapture } from '../../../helpers/log-capture.js'

function versions() {
  const logs = new LogCapture()
  return {
    versions: new McpProtocolVersions(createLogger({ level: 'info', destination: logs })),
    logs,
  }
}

const warnings = (logs: LogCapture) => logs.records().filter((record) => record['level'] === 40)

void t.test('a version string maps to the known revision whose shapes apply', async (t) => {
  t.same(resolveMcpVersion('2025-03-26'), { version: '2025-03-26', newer: false })
  t.same(resolveMcpVersion('2026-07-28'), { version: '2026-07-28', newer: false })
  t.same(
    resolveMcpVersion('2025-09-01'),
    { version: '2025-06-18', newer: false },
    'a draft between',
  )
  t.same(resolveMcpVersion('2024-11-05'), { version: '2025-03-26', newer: false }, 'older')
  t.same(resolveMcpVersion('2027-01-15'), { version: '2026-07-28', newer: true }, 'newer')
  t.equal(resolveMcpVersion('latest'), undefined)
  t.equal(resolveMcpVersion('2025-03-26 '), undefined)
})

void t.test('a session id is visible ASCII of bounded length', async (t) => {
  t.equal(sessionIdOf('abc-123'), 'abc-123')
  t.equal(sessionIdOf(['a', 'b']), undefined)
  t.equal(sessionIdOf('with space'), undefined)
  t.equal(sessionIdOf('x'.repeat(257)), undefined)
  t.equal(sessionIdOf(undefined), undefined)
})

void t.test('header, then the message, then the session, then the safe default', async (t) => {
  const { versions: v } = versions()
  v.remember('s1', '2025-06-18')
  const meta = (version: string) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': version } },
  })
  t.equal(
    v.versionOf({ 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': 's1' }, {}),
    '2025-06-18',
  )
  t.equal(v.versionOf({ 'mcp-session-id': 's1' }, meta('2026-07-28')), '2026-07-28')
  t.equal(v.versionOf({ 'mcp-session-id': 's1' }, [meta('2025-11-25')]), '2025-11-25', 'a batch')
  t.equal(v.versionOf({ 'mcp-session-id': 's1' }, {}), '2025-06-18', 'the session')
  t.equal(v.versionOf({ 'mcp-session-id': 's2' }, {}), ASSUMED_MCP_VERSION, 'unknown session')
  t.equal(v.versionOf({}, { params: 'x' }), ASSUMED_MCP_VERSION)
  t.equal(v.versionOf({ 'mcp-protocol-version': 'soon' }, {}), ASSUMED_MCP_VERSION, 'no revision')
  v.forget('s1')
  t.equal(v.versionOf({ 'mcp-session-id': 's1' }, {}), ASSUMED_MCP_VERSION, 'forgotten')
  v.remember('s3', 'not-a-date')
  t.equal(v.versionOf({ 'mcp-session-id': 's3' }, {}), ASSUMED_MCP_VERSION, 'not kept')
})

void t.test('a newer version is answered in the newest shape, with one warning each', async (t) => {
  const { versions: v, logs } = versions()
  const newer = { 'mcp-protocol-version': '2027-03-01' }
  t.equal(v.versionOf(newer, {}), '2026-07-28')
  t.equal(v.versionOf(newer, {}), '2026-07-28')
  t.match(warnings(logs), [{ mcp_protocol_version: '2027-03-01', answered_as: '2026-07-28' }])
  t.equal(warnings(logs).length, 1, 'once per version')
  for (let day = 1; day <= 40; day += 1) {
    v.versionOf({ 'mcp-protocol-version': `2030-01-${String(day).padStart(2, '0')}` }, {})
  }
  t.equal(warnings(logs).length, 32, 'a client cycling versions cannot flood the log')
})

const response = (
  body: string,
  type: string,
  headers: Record<string, string> = { 'mcp-session-id': 'sess-1' },
  status = 200,
): BufferedResponse => ({
  status,
  headers: { 'content-type': type, ...headers },
  body: Buffer.from(body),
})

void t.test('the initialize exchange teaches what the session speaks', async (t) => {
  t.equal(initializeRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), undefined)
  t.equal(initializeRequest([{ jsonrpc: '2.0', id: 1, method: 'initialize' }]), undefined)
  t.equal(initializeRequest({ jsonrpc: '2.0', method: 'initialize' }), undefined, 'no id')
  const request = initializeRequest({
    jsonrpc: '2.0',
    id: 7,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25' },
  })
  t.same(request, { id: 7, requested: '2025-11-25' })
  if (request === undefined) return
  const answer = (version: string, id = 7) =>
    JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: version } })
  const cases: [string, BufferedResponse, string | undefined][] = [
    [
      'an event stream, CRLF',
      response(`event: message\r\ndata: ${answer('2025-06-18')}\r\n\r\n`, 'text/event-stream'),
      '2025-06-18',
    ],
    ['JSON', response(answer('2026-07-28'), 'application/json'), '2026-07-28'],
    [
      'an answer to another id: the request',
      response(answer('2025-03-26', 8), 'application/json'),
      '2025-11-25',
    ],
    ['unreadable: the request', response('{', 'application/json'), '2025-11-25'],
    ['no JSON at all: the request', response('hi', 'text/plain'), '2025-11-25'],
    ['no session: nothing', response(answer('2025-06-18'), 'application/json', {}), undefined],
    [
      'a refusal: nothing',
      response(answer('2025-06-18'), 'application/json', { 'mcp-session-id': 'sess-1' }, 400),
      undefined,
    ],
  ]
  for (const [name, upstream, learned] of cases) {
    const { versions: v } = versions()
    t.equal(learnFromInitialize(v, request)(upstream), upstream, `${name}: passed on unchanged`)
    t.equal(v.versionOf({ 'mcp-session-id': 'sess-1' }, {}), learned ?? ASSUMED_MCP_VERSION, name)
  }
  const { versions: v } = versions()
  const silent = initializeRequest({ jsonrpc: '2.0', id: 7, method: 'initialize' })
  if (silent !== undefined) learnFromInitialize(v, silent)(response('{', 'application/json'))
  t.equal(v.versionOf({ 'mcp-session-id': 'sess-1' }, {}), ASSUMED_MCP_VERSION, 'nothing known')
})
