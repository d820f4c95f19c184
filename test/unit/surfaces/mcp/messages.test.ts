import t from 'tap'
import { inspectMcpBody, type ToolDecider } from '../../../../src/surfaces/mcp/messages.js'

const decide: ToolDecider = async (name, args) =>
  name === 'forbidden'
    ? { kind: 'deny', message: 'no' }
    : name === 'pinned'
      ? { kind: 'allow', args: { ...args, user_id: 'me' }, changed: true }
      : { kind: 'allow', args, changed: false }

const call = (id: number | undefined, name: string, args?: unknown) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  method: 'tools/call',
  params: { name, ...(args === undefined ? {} : { arguments: args }) },
})

void t.test('a single message', async (t) => {
  const plain = call(1, 'ok', {})
  t.same(await inspectMcpBody(plain, decide), {
    batch: false,
    changed: false,
    forward: plain,
    errors: [],
  })
  t.same(await inspectMcpBody(call(2, 'forbidden'), decide), {
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
  t.match(await inspectMcpBody(call(3, 'pinned'), decide), {
    changed: true,
    forward: { id: 3, params: { name: 'pinned', arguments: { user_id: 'me' } } },
  })
  const initialize = { jsonrpc: '2.0', id: 4, method: 'initialize' }
  t.same((await inspectMcpBody(initialize, decide)).forward, initialize, 'other methods untouched')
  t.same(
    (await inspectMcpBody(call(undefined, 'forbidden'), decide)).errors,
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
  )
  t.equal(inspection.batch, true)
  t.match(inspection.forward, [
    { id: 1 },
    { method: 'notifications/x' },
    { id: 3, params: { arguments: { user_id: 'me' } } },
  ])
  t.match(inspection.errors, [{ id: 2 }])
  t.same((await inspectMcpBody([call(5, 'forbidden')], decide)).forward, undefined, 'nothing left')
})

void t.test('arguments that are not an object are checked as none', async (t) => {
  const seen: unknown[] = []
  await inspectMcpBody(call(1, 'ok', 'text'), async (_name, args) => {
    seen.push(args)
    return { kind: 'allow', args, changed: false }
  })
  t.same(seen, [{}])
  t.equal((await inspectMcpBody(call(1, 'forbidden', 7), decide)).changed, true)
})
