/**
 * The absolute URLs an upstream builds from its own Host in discovery documents
 * (A2A agent cards, the MCP OAuth metadata) reach the client with the address the client used
 * (docs/agentos-compatibility.md DISC-1, DISC-2).
 */
import t from 'tap'
import { rewriteOrigins } from '../../../src/surfaces/discovery/discovery-urls.js'
import { httpRequest } from '../../helpers/raw-http.js'
import { jConfig, jwt, stack } from './helpers.js'

const J = await stack(t, jConfig())
const PROXIED = await stack(t, jConfig({}, { server: { trusted_proxies: ['127.0.0.1'] } }))
const PRESERVED = await stack(t, jConfig({}, { upstream: { preserve_host: true } }))
const reader = await jwt(['agents:read', 'teams:read', 'workflows:read'])

async function card(s: typeof J, path: string, headers: Record<string, string> = {}) {
  const reply = await httpRequest(s.gateway.url, {
    method: 'GET',
    path,
    headers: { authorization: `Bearer ${reader}`, ...headers },
  })
  return {
    status: reply.status,
    body: JSON.parse(reply.text) as { url?: string },
    headers: reply.headers,
  }
}

void t.test('agent, team and workflow cards name the gateway, not the upstream', async (t) => {
  const gatewayHost = new URL(J.gateway.url).host
  const upstreamHost = new URL(J.runtime.url).host
  for (const [family, id] of [
    ['agents', 'a1'],
    ['teams', 't1'],
    ['workflows', 'w1'],
  ] as const) {
    const reply = await card(J, `/a2a/${family}/${id}/.well-known/agent-card.json`)
    t.equal(reply.status, 200)
    t.equal(reply.body.url, `http://${gatewayHost}/a2a/${family}/${id}/v1/message:stream`, family)
    t.notMatch(JSON.stringify(reply.body), upstreamHost, `${family}: no upstream address`)
    t.equal(reply.headers['content-length'], String(Buffer.byteLength(JSON.stringify(reply.body))))
  }
  const custom = await card(J, '/a2a/agents/a1/.well-known/agent-card.json', {
    host: 'agents.example.com:8443',
  })
  t.equal(
    custom.body.url,
    'http://agents.example.com:8443/a2a/agents/a1/v1/message:stream',
    'the Host used',
  )
})

void t.test('a trusted proxy’s X-Forwarded-Proto and -Host are the client address', async (t) => {
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example' }
  const trusted = await card(PROXIED, '/a2a/agents/a1/.well-known/agent-card.json', forwarded)
  t.equal(trusted.body.url, 'https://public.example/a2a/agents/a1/v1/message:stream')
  const untrusted = await card(J, '/a2a/agents/a1/.well-known/agent-card.json', forwarded)
  t.equal(
    untrusted.body.url,
    `http://${new URL(J.gateway.url).host}/a2a/agents/a1/v1/message:stream`,
    'ignored from anyone else',
  )
})

void t.test('the OAuth protected-resource metadata likewise; a bad Host is a 400', async (t) => {
  const metadata = await httpRequest(J.gateway.url, {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    headers: { host: 'mcp.example' },
  })
  t.same(JSON.parse(metadata.text), {
    resource: 'http://mcp.example/mcp',
    authorization_servers: ['http://mcp.example/'],
    bearer_methods_supported: ['header'],
  })
  const bad = await httpRequest(J.gateway.url, {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    headers: { host: 'evil.example/path?' },
  })
  t.equal(bad.status, 400)
})

void t.test('preserve_host: the upstream already saw the client host', async (t) => {
  const reply = await card(PRESERVED, '/a2a/agents/a1/.well-known/agent-card.json', {
    host: 'kept.example',
  })
  t.equal(reply.body.url, 'http://kept.example/a2a/agents/a1/v1/message:stream')
})

void t.test('only the upstream origin is rewritten, at the start of a string', async (t) => {
  const rewrite = rewriteOrigins('10.0.0.5:7777', 'https://gw.example')
  const doc = {
    url: 'http://10.0.0.5:7777/a2a/agents/a1/v1',
    secure: 'HTTPS://10.0.0.5:7777',
    other: 'http://docs.example/10.0.0.5:7777',
    longer: 'http://10.0.0.5:77770/x',
    nested: [{ icon: 'http://10.0.0.5:7777/icon.png?x=1' }],
    text: 'see http://10.0.0.5:7777/x',
  }
  const body = Buffer.from(JSON.stringify(doc))
  const out = rewrite({ status: 200, headers: { 'content-type': 'application/json' }, body })
  t.same(JSON.parse(out.body.toString()), {
    url: 'https://gw.example/a2a/agents/a1/v1',
    secure: 'https://gw.example',
    other: 'http://docs.example/10.0.0.5:7777',
    longer: 'http://10.0.0.5:77770/x',
    nested: [{ icon: 'https://gw.example/icon.png?x=1' }],
    text: 'see http://10.0.0.5:7777/x',
  })
  const error = { status: 404, headers: {}, body }
  t.equal(rewrite(error), error, 'errors pass as they are')
})
