import t from 'tap'
import { inspectMcpBody, type ToolDecider } from '../../../../src/surfaces/mcp/messages.js'
import type { McpVersion } from '../../../../src/surfaces/mcp/protocol-versions.js'

const decide: ToolDecider = async (name, args) =>
  name === 'forbidden'
    ? { kind: 'deny', message: 'no' }
    : name === 'pinned'
      ? { kind: 'allow', args: { ...args, user_id: 'me' }, changed: true }
      : { kind: 'allow', args, changed: false }

/** The exchange speaks 2025-11-25. */
const legacy = (): McpVersion => '2025-11-25'

const call = (id: number | undefined, name: string, args?: unknown) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  method: 'tools/call',
  params: { name, ...(args === undefined ? {} : { arguments: args }) },
})

void t.test('a single message', async (t) => {
  const plain = call(1, 'ok', {})
  t.same(await inspectMcpBody(plain, decide, legacy), {
    batch: false,
    changed: false,
    forward: plain,
    errors: [],
  })
  t.same(await inspectMcpBody(call(2, 'forbidden'), decide, legacy), {
    batch: false,
    changed: true,
    forward: undefined,
    errors: [
      {
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [{ type: 'text', text: "Error calling tool 'forbidden': no" }],
          isError: true,
        },
      },
    ],
  })
  t.match(await inspectMcpBody(call(3, 'pinned'), decide, legacy), {
    changed: true,
    forward: { id: 3, params: { name: 'pinned', arguments: { user_id: 'me' } } },
  })
  const initialize = { jsonrpc: '2.0', id: 4, method: 'initialize' }
  t.same(
    (await inspectMcpBody(initialize, decide, legacy)).forward,
    initialize,
    'other methods untouched',
  )
  t.same(
    (await inspectMcpBody(call(undefined, 'forbidden'), decide, legacy)).errors,
    [],
    'a notification: no answer',
  )
})

void t.test('a batch keeps the allowed messages in order', async (t) => {
  const inspection = await inspectMcpBody(
    [
      call(1, 'ok'),
      call(2, 'forbidden'),
      { jsonrpc: '2.0', method: 'notifications/x' },
      call(3, 'pinned'),
    ],
    decide,
    legacy,
  )
  t.equal(inspection.batch, true)
  t.match(inspection.forward, [
    { id: 1 },
    { method: 'notifications/x' },
    { id: 3, params: { arguments: { user_id: 'me' } } },
  ])
  t.match(inspection.errors, [{ id: 2 }])
  t.same(
    (await inspectMcpBody([call(5, 'forbidden')], decide, legacy)).forward,
    undefined,
    'nothing left',
  )
})

void t.test('arguments that are not an object are checked as none', async (t) => {
  const seen: unknown[] = []
  await inspectMcpBody(
    call(1, 'ok', 'text'),
    async (_name, args) => {
      seen.push(args)
      return { kind: 'allow', args, changed: false }
    },
    legacy,
  )
  t.same(seen, [{}])
  t.equal((await inspectMcpBody(call(1, 'forbidden', 7), decide, legacy)).changed, true)
})

void t.test(
  'the version is asked for only when something is refused, and shapes the answer',
  async (t) => {
    let asked = 0
    const newest = (): McpVersion => {
      asked += 1
      return '2026-07-28'
    }
    await inspectMcpBody(call(1, 'ok'), decide, newest)
    t.equal(asked, 0, 'nothing written, no version needed')
    const { errors } = await inspectMcpBody(call(2, 'forbidden'), decide, newest)
    t.equal(asked, 1)
    t.same(errors, [
      {
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [{ type: 'text', text: "Error calling tool 'forbidden': no" }],
          isError: true,
          resultType: 'complete',
        },
      },
    ])
  },
)
