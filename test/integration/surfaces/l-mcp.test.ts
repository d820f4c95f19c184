/** Checklist L (174–178): MCP at `/mcp` through the gateway. */
import t from 'tap'
import { httpRequest } from '../../helpers/raw-http.js'
import { ADMIN, jConfig, oConfig, jwt, mint, sConfig, stack, withDatabase } from './helpers.js'

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't' } },
}

const S = await stack(t, sConfig(withDatabase(t)))
const O = await stack(t, oConfig(withDatabase(t)))
const METADATA = 'https://gateway.example/.well-known/oauth-protected-resource/mcp'
const JA = await stack(
  t,
  jConfig(
    {},
    {
      ...withDatabase(t),
      interfaces: {
        mcp: {
          resource_metadata_url: METADATA,
          public_routes: ['/.well-known/oauth-protected-resource/mcp', '/register'],
        },
      },
    },
  ),
)

void t.test('174 S: /mcp needs the key or a valid PAT', async (t) => {
  const none = await S.call('POST', '/mcp', { json: INITIALIZE })
  t.same([none.status, none.detail], [401, 'Authorization header required'], 'no credential')
  t.equal(none.upstream, undefined)
  const bad = await S.call('POST', '/mcp', { json: INITIALIZE, token: 'not-the-key' })
  t.same([bad.status, bad.detail], [401, 'Invalid authentication token'], 'a wrong key')
  const key = await S.call('POST', '/mcp', {
    json: INITIALIZE,
    token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
  })
  t.equal(key.status, 200, 'the key')
  t.match(key.body, { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'agentos-demo' } } })
  const { token, id } = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'mcp-client')
  t.equal((await S.call('POST', '/mcp', { json: INITIALIZE, token })).status, 200, 'a PAT')
  t.equal(
    (
      await S.call('DELETE', `/service-accounts/${id}`, {
        token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
      })
    ).status,
    204,
  )
  const revoked = await S.call('POST', '/mcp', { json: INITIALIZE, token })
  t.same(
    [revoked.status, revoked.detail],
    [401, 'Invalid or expired service account token'],
    'a revoked PAT',
  )
})

void t.test('175 O: /mcp is open; an unverifiable PAT is ignored', async (t) => {
  t.equal((await O.call('POST', '/mcp', { json: INITIALIZE })).status, 200, 'no credential')
  const bogus = await O.call('POST', '/mcp', {
    json: INITIALIZE,
    token: `svc_pat_invalid${'x'.repeat(40)}`,
  })
  t.equal(bogus.status, 200, 'a bogus PAT')
})

void t.test('176 O: the DNS-rebinding guard refuses a foreign Host or Origin', async (t) => {
  const post = (headers: Record<string, string>) =>
    httpRequest(O.gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(INITIALIZE),
    })
  const evil = await post({ host: 'evil.example' })
  t.equal(evil.status, 400)
  t.same(evil.json(), { error: 'invalid_host', detail: 'Host not allowed.' })
  t.equal((await post({ host: 'localhost:8080' })).status, 200, 'localhost is allowed')
  const origin = await post({ origin: 'https://evil.example' })
  t.same(
    [origin.status, origin.json()],
    [400, { error: 'invalid_origin', detail: 'Origin not allowed.' }],
  )
  t.equal(
    (await O.call('GET', '/health', { headers: { host: 'evil.example' } })).status,
    200,
    'only MCP',
  )

  const listed = await stack(
    t,
    sConfig({
      interfaces: {
        mcp: { allowed_hosts: ['*.example.com'], allowed_origins: ['https://app.test'] },
      },
    }),
  )
  const ask = (headers: Record<string, string>) =>
    httpRequest(listed.gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
        ...headers,
      },
      body: JSON.stringify(INITIALIZE),
    })
  t.equal((await ask({ host: 'api.example.com' })).status, 200, 'an allowed pattern')
  t.equal((await ask({ host: 'example.org' })).status, 400, 'configured hosts guard any mode')
  t.equal((await ask({ origin: 'https://app.test' })).status, 200, 'an allowed origin')
})

void t.test('177 with OAuth metadata: challenge, public metadata, REST still closed', async (t) => {
  const none = await JA.call('POST', '/mcp', { json: INITIALIZE })
  t.equal(none.status, 401)
  t.equal(
    none.headers['www-authenticate'],
    `Bearer resource_metadata="${METADATA}"`,
    'no credential: no error code (RFC 6750 §3.1)',
  )
  const metadata = await JA.call('GET', '/.well-known/oauth-protected-resource/mcp')
  t.equal(metadata.status, 200, 'the metadata needs no credential')
  t.match(metadata.body, { resource: /\/mcp$/ })
  t.equal((await JA.call('GET', '/agents')).status, 401, 'REST still protected')
  const admin = await jwt([ADMIN], { sub: 'root' })
  const { token, id } = await mint(JA, admin, 'oauth-pat')
  t.equal((await JA.call('POST', '/mcp', { json: INITIALIZE, token })).status, 200, 'PAT')
  t.equal((await JA.call('DELETE', `/service-accounts/${id}`, { token: admin })).status, 204)
  const revoked = await JA.call('POST', '/mcp', { json: INITIALIZE, token })
  t.equal(revoked.status, 401, 'revoked PAT')
  t.equal(
    revoked.headers['www-authenticate'],
    `Bearer resource_metadata="${METADATA}", error="invalid_token"`,
    'a refused token: the metadata and the error code',
  )
  const user = await jwt(['agents:run'], { sub: 'u1' })
  t.equal((await JA.call('POST', '/mcp', { json: INITIALIZE, token: user })).status, 200, 'JWT')
  const reserved = await JA.call('POST', '/mcp', {
    json: INITIALIZE,
    token: await jwt([], { sub: 'sa:x' }),
  })
  t.same([reserved.status, reserved.detail], [401, 'Invalid token subject'], 'JWT with sub sa:x')
})

void t.test('178 an upstream authorization server listed as public passes through', async (t) => {
  const confidential = await JA.call('POST', '/register', {
    json: {
      redirect_uris: ['http://localhost/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  })
  t.equal(confidential.status, 400, 'confidential client refused (by the upstream)')
  t.match(confidential.body, { error: 'invalid_client_metadata' })
  const open = await JA.call('POST', '/register', {
    json: { redirect_uris: ['http://localhost/cb'] },
  })
  t.equal(open.status, 201, 'public client registered')
})
