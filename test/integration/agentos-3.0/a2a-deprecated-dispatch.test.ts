/**
 * V3-A2A-1: AgentOS 3.0 removed the deprecated dynamic A2A dispatch (`POST {prefix}/message/send`
 * and `…/message/stream`), route and scope rule: an authenticated caller gets the upstream's 404
 * and the gateway makes no dispatch check (no scope rule, no look-up of the family `X-Agent-ID`
 * names). Through real gateways pinned to 3.0 against the demo runtime as an open 3.0.0a3; the
 * 2.9 line beside it, for contrast.
 */
import t from 'tap'
import { startRuntime } from '../../helpers/runtime.js'
import { stack } from '../../conformance/fixtures.js'
import { forwarded, ip, jConfig, jwt, refused, stack30, startRuntime30 } from './line-3.0.js'

const runtime = await startRuntime30(t)
const J = await stack30(t, runtime, jConfig())
const PROTOCOL = await stack30(
  t,
  runtime,
  jConfig({}, { interfaces: { a2a: { prefix: '/protocol' } } }),
)

const message = {
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      messageId: 'm1',
      role: 'user',
      parts: [{ kind: 'text', text: 'hi' }],
    },
  },
}
const dispatch = (token: string | undefined, target: string) => ({
  ...(token === undefined ? {} : { token }),
  json: message,
  headers: { 'x-agent-id': target },
})

void t.test(
  'V3-A2A-1 without a credential the deprecated routes are still behind authentication → 401',
  async (t) => {
    for (const path of ['/a2a/message/send', '/a2a/message/stream']) {
      refused(
        t,
        await J.call('POST', path, dispatch(undefined, 'a1')),
        401,
        'Authorization header missing',
      )
    }
  },
)

void t.test(
  'V3-A2A-1 authenticated, with or without any scope or the family’s run scope → the upstream’s 404 Not Found',
  async (t) => {
    const callers = [await jwt(['config:read']), await jwt([]), await jwt(['agents:run'])]
    for (const token of callers) {
      for (const [path, target] of [
        ['/a2a/message/send', 't1'],
        ['/a2a/message/stream', 'w1'],
        ['/a2a/message/send', 'a1'],
      ] as const) {
        const reply = await J.call('POST', path, dispatch(token, target))
        forwarded(t, reply, 404, path)
        t.equal(reply.detail, 'Not Found')
      }
    }
  },
)

void t.test(
  'V3-A2A-1 the same under a configured prefix: /protocol/message/send → 404',
  async (t) => {
    const reply = await PROTOCOL.call(
      'POST',
      '/protocol/message/send',
      dispatch(await jwt(['agents:run']), 't1'),
    )
    forwarded(t, reply, 404, '/protocol/message/send')
  },
)

void t.test(
  'V3-A2A-1 the per-component A2A routes are unchanged: message:send needs agents:run',
  async (t) => {
    const path = '/a2a/agents/a1/v1/message:send'
    refused(
      t,
      await J.call('POST', path, { token: await jwt(['config:read']), json: message }),
      403,
      ip('agents:run'),
    )
    forwarded(
      t,
      await J.call('POST', path, { token: await jwt(['agents:run']), json: message }),
      200,
      path,
    )
  },
)

void t.test(
  'V3-A2A-1 contrast, the 2.9 line: the dispatch is checked against the family looked up (403 for a team without teams:run)',
  async (t) => {
    const runtime29 = await startRuntime(t, { agentos: '2.9' })
    const J29 = await stack(t, runtime29, jConfig(), {}, { agentOsLine: '2.9' })
    const reply = await J29.call(
      'POST',
      '/a2a/message/send',
      dispatch(await jwt(['agents:run']), 't1'),
    )
    t.same([reply.status, reply.detail], [403, 'Insufficient permissions to run this team'])
    t.equal(reply.upstream, undefined, 'the dispatch itself was not forwarded')
    t.same(
      runtime29.requests.map((request) => request.path),
      ['/config'],
      'only its look-up of the family reached the upstream',
    )
  },
)
