/** Self-authenticating webhook interfaces and switching surfaces off. */
import t from 'tap'
import { jConfig, jwt, stack } from './helpers.js'

const SLACK = { type: 'url_verification', challenge: 'c-123' }

void t.test(
  'a listed webhook prefix bypasses authentication, identity still stripped',
  async (t) => {
    const s = await stack(t, jConfig({}, { interfaces: { webhooks: { prefixes: ['/slack'] } } }))
    const reply = await s.call('POST', '/slack/events', {
      json: SLACK,
      headers: { 'x-auth-user-id': 'mallory', 'X-Auth-Scopes': '["os:admin"]' },
    })
    t.same([reply.status, reply.body], [200, { challenge: 'c-123' }], 'no credential needed')
    t.equal(reply.upstream?.headers['x-auth-user-id'], undefined, 'client identity headers removed')
    t.equal(reply.upstream?.headers['x-auth-scopes'], undefined)
    const token = await jwt(['agents:run'], { sub: 'u1' })
    const withToken = await s.call('POST', '/slack/events', { json: SLACK, token })
    t.equal(
      withToken.upstream?.headers['x-auth-user-id'],
      undefined,
      'a token attaches no identity',
    )
    t.equal(
      (await s.call('POST', '/slack', { json: SLACK })).status,
      401,
      'the prefix itself is not',
    )
    t.equal((await s.call('POST', '/telegram/webhook', { json: {} })).status, 401, 'unlisted')
  },
)

void t.test('by default no webhook prefix is public', async (t) => {
  const s = await stack(t, jConfig())
  t.equal((await s.call('POST', '/slack/events', { json: SLACK })).status, 401)
})

void t.test('A2A and AG-UI mappings and MCP inspection can be switched off', async (t) => {
  const s = await stack(
    t,
    jConfig(
      {},
      { interfaces: { a2a: { enabled: false }, agui: { endpoints: [] }, mcp: { enabled: false } } },
    ),
  )
  const token = await jwt(['config:read'])
  const a2a = await s.call('POST', '/a2a/agents/a1/v1/message:send', {
    token,
    json: { jsonrpc: '2.0', id: 1, params: { message: { parts: [] } } },
  })
  t.equal(a2a.status, 200, 'A2A off: unmapped, as without the interface')
  t.equal((await s.call('POST', '/agui', { token, json: {} })).status, 200, 'no AG-UI endpoint')
  const mcp = await s.call('POST', '/mcp', {
    token,
    json: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'run_team', arguments: {} },
    },
  })
  t.match(mcp.body, { id: 1, result: {} }, 'MCP inspection off: forwarded as is')
})
