import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import t from 'tap'
import { startFoundationGateway } from '../../helpers/foundation.js'
import { accessLogRecord } from '../../helpers/log-records.js'
import { httpRequest, rawExchange, rawRequestHead } from '../../helpers/raw-http.js'
import { startCustomUpstream, startRuntime } from '../../helpers/runtime.js'
import { startTcpTap } from '../../helpers/tcp-tap.js'
import { waitFor } from '../../helpers/wait.js'

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex')

interface Echo {
  method: string
  path: string
  rawUrl: string
  headers: Record<string, string | string[] | undefined>
  json?: unknown
  bodyBytes: number
  bodySha256: string
}

void t.test('every method reaches the upstream with its body intact', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })

  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    const body = JSON.stringify({ method, items: [1, 2, 3], text: 'héllo' })
    const response = await httpRequest(gateway.url, {
      method,
      path: `/echo/${method.toLowerCase()}`,
      headers: { 'content-type': 'application/json' },
      body,
    })
    t.equal(response.status, 200, `${method} answered`)
    const echo = response.json() as Echo
    t.equal(echo.method, method)
    t.equal(echo.path, `/echo/${method.toLowerCase()}`)
    t.same(echo.json, JSON.parse(body), `${method} JSON body arrived`)
    t.equal(echo.bodyBytes, Buffer.byteLength(body))
    t.equal(echo.bodySha256, sha256(body))
    t.equal(echo.headers['content-type'], 'application/json')
  }

  const binary = randomBytes(256 * 1024)
  const sized = await httpRequest(gateway.url, {
    method: 'POST',
    path: '/echo',
    headers: { 'content-type': 'application/octet-stream' },
    body: binary,
  })
  t.match(sized.json(), { bodyBytes: binary.length, bodySha256: sha256(binary) }, 'binary body')

  // No Content-Length: node sends it chunked; the gateway re-frames it, bytes unchanged.
  const parts = [randomBytes(10_000), randomBytes(1), randomBytes(70_000)]
  const chunked = await httpRequest(gateway.url, {
    method: 'PUT',
    path: '/echo',
    headers: { 'content-type': 'application/octet-stream' },
    body: Readable.from(parts),
  })
  const whole = Buffer.concat(parts)
  t.match(chunked.json(), { bodyBytes: whole.length, bodySha256: sha256(whole) }, 'chunked body')
  t.equal(runtime.requests.at(-1)?.headers['content-length'], undefined)

  const empty = await httpRequest(gateway.url, { method: 'POST', path: '/echo', body: '' })
  t.match(empty.json(), { method: 'POST', bodyBytes: 0 })
  const none = await httpRequest(gateway.url, { method: 'DELETE', path: '/echo' })
  t.match(none.json(), { method: 'DELETE', bodyBytes: 0 })
  t.equal(runtime.requests.at(-1)?.headers['transfer-encoding'], undefined, 'no body invented')
})

void t.test('query strings reach the upstream byte for byte', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const queries = [
    'a=1',
    'b=2&a=1&a=3',
    'x=%2F&y=%2e%2e%2F&z=%00',
    'sp=a+b&pct=a%20b',
    'bad=%zz&half=%4',
    "punct=/?;:@!$'()*,",
    'empty=&flag&=novalue',
    'utf8=%C3%A9t%C3%A9&upper=%c3%a9',
    'quotes="<>{}|^`\\',
    'q=1?2',
  ]
  for (const query of queries) {
    const response = await httpRequest(gateway.url, { path: `/echo/q?${query}` })
    t.equal(response.status, 200, query)
    t.equal((response.json() as Echo).rawUrl, `/echo/q?${query}`, `query kept: ${query}`)
    t.equal(runtime.requests.at(-1)?.rawUrl, `/echo/q?${query}`)
  }
})

void t.test('upstream status codes and bodies come back unchanged', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  for (const code of [200, 201, 202, 204, 304, 400, 401, 403, 404, 409, 418, 422, 500, 502, 503]) {
    const direct = await httpRequest(runtime.url, { path: `/status/${code}` })
    const proxied = await httpRequest(gateway.url, { path: `/status/${code}` })
    t.equal(proxied.status, code, `status ${code}`)
    t.equal(proxied.text, direct.text, `body of ${code}`)
    t.equal(
      proxied.headers['content-type'],
      direct.headers['content-type'],
      `content-type of ${code}`,
    )
    if (code === 204 || code === 304) t.equal(proxied.body.length, 0, `${code} has no body`)
  }
  // A status the upstream route table does not know: the upstream's own 404 and 405 pass through.
  const missing = await httpRequest(gateway.url, { path: '/no/such/route' })
  t.equal(missing.status, 404)
  t.same(missing.json(), { detail: 'Not Found' })
  const wrongMethod = await httpRequest(gateway.url, { method: 'POST', path: '/health' })
  t.equal(wrongMethod.status, 405)
})

void t.test(
  'upstream response headers come back; redirects are passed, not followed',
  async (t) => {
    const upstream = await startCustomUpstream(t, (req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/elsewhere', 'content-length': '0' })
        res.end()
        return
      }
      res.writeHead(201, [
        'Content-Type',
        'text/plain; charset=utf-8',
        'Set-Cookie',
        'a=1; Path=/; HttpOnly',
        'Set-Cookie',
        'b=2; Path=/',
        'Cache-Control',
        'no-store',
        'ETag',
        '"v1"',
        'X-Custom-One',
        'one',
        'Vary',
        'Origin',
        'WWW-Authenticate',
        'Bearer realm="agentos"',
      ])
      res.end('created')
    })
    const gateway = await startFoundationGateway(t, { upstream: { url: upstream.url } })

    const response = await httpRequest(gateway.url, { path: '/thing' })
    t.equal(response.status, 201)
    t.equal(response.text, 'created')
    t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
    t.same(response.headers['set-cookie'], ['a=1; Path=/; HttpOnly', 'b=2; Path=/'], 'both cookies')
    t.equal(response.headers['cache-control'], 'no-store')
    t.equal(response.headers.etag, '"v1"')
    t.equal(response.headers['x-custom-one'], 'one')
    t.equal(response.headers.vary, 'Origin')
    t.equal(response.headers['www-authenticate'], 'Bearer realm="agentos"')

    const redirect = await httpRequest(gateway.url, { path: '/redirect' })
    t.equal(redirect.status, 302, 'the redirect reaches the client')
    t.equal(redirect.headers.location, '/elsewhere')
  },
)

void t.test('hop-by-hop request headers, and those listed in Connection, stay here', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const response = await rawExchange(
    gateway.port,
    rawRequestHead('GET', '/echo', [
      'Host: portcullis.test',
      'Connection: keep-alive, X-Hop-Custom, x-hop-second',
      'Connection: X-Hop-Third',
      'X-Hop-Custom: secret',
      'X-Hop-Second: secret',
      'X-Hop-Third: secret',
      'Keep-Alive: timeout=5, max=100',
      'Proxy-Connection: keep-alive',
      'Proxy-Authorization: Basic dXNlcjpwYXNz',
      'TE: trailers',
      'Trailer: X-Checksum',
      'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA',
      'Upgrade: example/1',
      'X-Normal: kept',
      'X-Hop-Custom-Not-Listed: kept',
    ]),
  )
  t.equal(response.status, 200)
  const recorded = runtime.requests.at(-1)
  t.ok(recorded)
  const names = (recorded?.rawHeaders ?? [])
    .filter((_, index) => index % 2 === 0)
    .map((name) => name.toLowerCase())
  for (const name of [
    'x-hop-custom',
    'x-hop-second',
    'x-hop-third',
    'keep-alive',
    'proxy-connection',
    'proxy-authorization',
    'te',
    'trailer',
    'http2-settings',
    'upgrade',
  ]) {
    t.notOk(names.includes(name), `${name} not forwarded`)
  }
  t.notMatch(
    String(recorded?.headers.connection ?? ''),
    /hop/i,
    "the upstream's Connection is the gateway's own",
  )
  t.equal(recorded?.headers['x-normal'], 'kept')
  t.equal(recorded?.headers['x-hop-custom-not-listed'], 'kept')
})

void t.test('hop-by-hop response headers, and those listed in Connection, stay here', async (t) => {
  const upstream = await startCustomUpstream(t, (_req, res) => {
    res.writeHead(200, [
      'Connection',
      'X-Up-Hop, x-up-second',
      'X-Up-Hop',
      'secret',
      'X-Up-Second',
      'secret',
      'Keep-Alive',
      'timeout=60',
      'Proxy-Authenticate',
      'Basic realm="upstream"',
      'Proxy-Connection',
      'keep-alive',
      'Trailer',
      'X-Checksum',
      'X-Kept',
      'kept',
      'Content-Type',
      'text/plain',
    ])
    res.end('ok')
  })
  const gateway = await startFoundationGateway(t, { upstream: { url: upstream.url } })
  // A keep-alive client, so that the gateway's own Connection handling is visible.
  const response = await rawExchange(
    gateway.port,
    rawRequestHead('GET', '/hop', ['Host: portcullis.test', 'Connection: keep-alive']),
  )
  t.equal(response.status, 200)
  t.equal(response.body, 'ok')
  for (const name of [
    'x-up-hop',
    'x-up-second',
    'proxy-authenticate',
    'proxy-connection',
    'trailer',
  ]) {
    t.equal(response.headers[name], undefined, `${name} not passed back`)
  }
  t.notMatch(
    response.headers.connection ?? '',
    /up/i,
    "the client's Connection is the gateway's own",
  )
  t.notMatch(
    response.headers['keep-alive'] ?? '',
    /timeout=60/,
    "the upstream's Keep-Alive is not passed back",
  )
  t.equal(response.headers['x-kept'], 'kept')
})

void t.test(
  'client X-Auth-* identity headers never reach the upstream, in any spelling',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
    const identity = [
      'X-Auth-User-Id: mallory',
      'x-auth-user-id: mallory-again',
      'X-AUTH-SCOPES: os:admin',
      'X_Auth_User_Id: underscored',
      'x_auth-scopes: mixed',
      'X-Auth_Session-Id: mixed-again',
      'X-Auth-Dependencies: {"x":1}',
      'X-Auth-Session-State: {}',
      'X-Auth-Assertion: forged.jwt.value',
      'X-Auth-Listed: listed',
    ]
    const sendAndCheck = async (path: string, extra: string[]): Promise<void> => {
      const response = await rawExchange(
        gateway.port,
        rawRequestHead('GET', path, [
          'Host: portcullis.test',
          'Connection: X-Auth-Listed',
          ...identity,
          'X-Authority: kept',
          ...extra,
        ]),
      )
      t.equal(response.status, 200, path)
      const recorded = runtime.requests.at(-1)
      const names = (recorded?.rawHeaders ?? []).filter((_, index) => index % 2 === 0)
      t.same(
        names.filter((name) => /^x[-_]auth[-_]/i.test(name)),
        [],
        `no identity header reached the upstream on ${path}`,
      )
      t.equal(recorded?.headers['x-authority'], 'kept', 'a look-alike name is not over-stripped')
      t.notMatch(JSON.stringify(recorded?.rawHeaders), /mallory|underscored|forged|listed/)
    }
    await sendAndCheck('/echo', [])
    await sendAndCheck('/health', [])
    await sendAndCheck('/echo/post-like?user_id=x', ['X-Auth-User-Id: last'])
  },
)

void t.test('forwarded-path headers never reach the upstream', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const headers = [
    'X-Original-URL',
    'X-Original-URI',
    'X-Original-Path',
    'X-Rewrite-URL',
    'X-Forwarded-Uri',
    'X-Forwarded-Path',
    'X-Forwarded-Prefix',
    'X-Envoy-Original-Path',
    'x-original-url',
    'X_Original_URL',
    'X_Rewrite_Url',
    'x_forwarded_prefix',
    'X-ENVOY-ORIGINAL-PATH',
  ]
  const response = await rawExchange(
    gateway.port,
    rawRequestHead('GET', '/echo', [
      'Host: portcullis.test',
      ...headers.map((name) => `${name}: /admin/secret`),
    ]),
  )
  t.equal(response.status, 200)
  const recorded = runtime.requests.at(-1)
  t.equal(recorded?.path, '/echo')
  t.notMatch(JSON.stringify(recorded?.rawHeaders), /admin\/secret/, 'none of them was forwarded')
})

void t.test('every response carries an X-Request-Id, which the upstream saw too', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const first = await httpRequest(gateway.url, {
    path: '/echo',
    headers: { 'x-request-id': 'client-chosen' },
  })
  const second = await httpRequest(gateway.url, { path: '/echo' })
  const firstId = first.headers['x-request-id']
  t.match(firstId, /^[0-9a-f-]{36}$/)
  t.not(firstId, 'client-chosen', 'an untrusted client does not choose the id')
  t.equal((first.json() as Echo).headers['x-request-id'], firstId, 'the upstream got the same id')
  t.not(second.headers['x-request-id'], firstId, 'each request has its own id')
  const refused = await httpRequest(gateway.url, { path: '/echo/../admin' })
  t.equal(refused.status, 400)
  t.match(refused.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'errors carry one too')
  const record = await accessLogRecord(gateway.logs, firstId)
  t.match(record, { method: 'GET', path: '/echo', status: 200 }, 'the access log names the id')
})

void t.test('upstream connections are kept alive and reused', async (t) => {
  const runtime = await startRuntime(t)
  const tap = await startTcpTap(t, runtime.port)
  const gateway = await startFoundationGateway(t, { upstream: { url: tap.url } })
  // The gateway's own read of the AgentOS version comes first (it uses the same pool).
  await waitFor(() => gateway.gateway.agentos?.upstream !== undefined, 'the version to be read')
  for (let index = 0; index < 20; index++) {
    // A new client connection each time: reuse must come from the gateway's pool.
    const response = await httpRequest(gateway.url, {
      method: index % 2 === 0 ? 'GET' : 'POST',
      path: `/echo/${index}`,
      body: index % 2 === 0 ? undefined : `body ${index}`,
    })
    t.equal(response.status, 200)
  }
  t.equal(runtime.requests.length, 20)
  t.equal(tap.connections, 1, '20 sequential requests used one upstream connection')
})
