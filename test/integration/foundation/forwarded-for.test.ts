import t from 'tap'
import { startFoundationGateway } from '../../helpers/foundation.js'
import type { TestGateway } from '../../helpers/gateway.js'
import { accessLogRecord } from '../../helpers/log-records.js'
import { rawExchange, rawRequestHead } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'

const CLIENT_CLAIMS = [
  'Host: portcullis.test',
  'X-Forwarded-For: 203.0.113.7, 198.51.100.2',
  'X-Forwarded-Proto: https',
  'X-Forwarded-Host: public.example',
  'Forwarded: for=203.0.113.7;proto=https;host=public.example',
  'X-Request-Id: trace-abc.123',
]

let lastRequestId: string | undefined

async function send(gateway: TestGateway, lines: string[]): Promise<void> {
  const response = await rawExchange(gateway.port, rawRequestHead('GET', '/echo', lines))
  if (response.status !== 200) throw new Error(`unexpected ${response.status}: ${response.body}`)
  lastRequestId = response.headers['x-request-id']
}

/** The client address the access log gives for the last request sent. */
async function accessLogClient(gateway: TestGateway): Promise<unknown> {
  return (await accessLogRecord(gateway.logs, lastRequestId)).client
}

void t.test("an untrusted peer's X-Forwarded-* and Forwarded are replaced", async (t) => {
  const runtime = await startRuntime(t)
  const upstreamHost = new URL(runtime.url).host
  // No trusted proxies at all, and a list that does not include the peer: the same outcome.
  for (const trusted_proxies of [[], ['10.0.0.0/8', '::1/128']]) {
    const gateway = await startFoundationGateway(t, {
      upstream: { url: runtime.url },
      server: { trusted_proxies },
    })
    await send(gateway, CLIENT_CLAIMS)
    const headers = runtime.requests.at(-1)?.headers ?? {}
    t.equal(headers['x-forwarded-for'], '127.0.0.1', 'the socket peer, not the claimed chain')
    t.equal(headers['x-forwarded-proto'], 'http', 'the scheme of this hop')
    t.equal(headers['x-forwarded-host'], 'portcullis.test', 'the Host the client sent')
    t.equal(headers.forwarded, undefined, 'Forwarded dropped')
    t.equal(headers.host, upstreamHost, "the upstream's own Host")
    t.not(headers['x-request-id'], 'trace-abc.123', 'the request id is ours')
    t.equal(await accessLogClient(gateway), '127.0.0.1')

    // Repeated header lines change nothing.
    await send(gateway, [
      'Host: portcullis.test',
      'X-Forwarded-For: 203.0.113.7',
      'X-Forwarded-For: 198.51.100.2',
      'x-forwarded-proto: https',
      'X-FORWARDED-HOST: public.example',
    ])
    const again = runtime.requests.at(-1)?.headers ?? {}
    t.equal(again['x-forwarded-for'], '127.0.0.1')
    t.equal(again['x-forwarded-proto'], 'http')
    t.equal(again['x-forwarded-host'], 'portcullis.test')
  }
})

void t.test("a trusted proxy's chain is extended and its proto and host are kept", async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { trusted_proxies: ['127.0.0.1/32'] },
  })
  await send(gateway, CLIENT_CLAIMS)
  const headers = runtime.requests.at(-1)?.headers ?? {}
  t.equal(headers['x-forwarded-for'], '203.0.113.7, 198.51.100.2, 127.0.0.1', 'the peer appended')
  t.equal(headers['x-forwarded-proto'], 'https')
  t.equal(headers['x-forwarded-host'], 'public.example')
  t.equal(headers.forwarded, 'for=203.0.113.7;proto=https;host=public.example')
  t.equal(headers['x-request-id'], 'trace-abc.123', "a trusted proxy's request id is kept")
  t.equal(
    await accessLogClient(gateway),
    '198.51.100.2',
    'the right-most untrusted address is the client',
  )

  // Several X-Forwarded-For lines form one chain; list-valued proto and host use the first entry.
  await send(gateway, [
    'Host: portcullis.test',
    'X-Forwarded-For: 203.0.113.7',
    'X-Forwarded-For: 198.51.100.2',
    'X-Forwarded-Proto: https, http',
    'X-Forwarded-Host: public.example, internal.example',
  ])
  const joined = runtime.requests.at(-1)?.headers ?? {}
  t.equal(joined['x-forwarded-for'], '203.0.113.7, 198.51.100.2, 127.0.0.1')
  t.equal(joined['x-forwarded-proto'], 'https')
  t.equal(joined['x-forwarded-host'], 'public.example')

  // Nothing claimed: the trusted proxy is itself the client.
  await send(gateway, ['Host: portcullis.test'])
  const bare = runtime.requests.at(-1)?.headers ?? {}
  t.equal(bare['x-forwarded-for'], '127.0.0.1')
  t.equal(bare['x-forwarded-proto'], 'http')
  t.equal(bare['x-forwarded-host'], 'portcullis.test')
  t.equal(bare.forwarded, undefined)
  t.equal(await accessLogClient(gateway), '127.0.0.1')

  // A malformed id from a trusted proxy is replaced.
  await send(gateway, ['Host: portcullis.test', 'X-Request-Id: bad id with spaces'])
  t.match(runtime.requests.at(-1)?.headers['x-request-id'], /^[0-9a-f-]{36}$/)

  // So is a token-shaped one: it would go upstream, back to the client and into every log line.
  const token = 'svc_pat_0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg1a2B3c'
  await send(gateway, ['Host: portcullis.test', `X-Request-Id: ${token}`])
  t.match(runtime.requests.at(-1)?.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  t.match(lastRequestId, /^[0-9a-f-]{36}$/, 'the client is answered with the new id')
  t.equal((await accessLogRecord(gateway.logs, lastRequestId)).status, 200, 'logged under it')
  t.notMatch(gateway.logs.text, token)
})

void t.test('the client address skips every trusted hop of the chain', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { trusted_proxies: ['127.0.0.1', '10.0.0.0/8'] },
  })
  await send(gateway, ['Host: h', 'X-Forwarded-For: 203.0.113.7, 10.1.2.3, 10.4.5.6'])
  t.equal(await accessLogClient(gateway), '203.0.113.7')
  // An entry that is not an address ends the walk at the last trusted hop.
  await send(gateway, ['Host: h', 'X-Forwarded-For: 203.0.113.7, not-an-ip, 10.4.5.6'])
  t.equal(await accessLogClient(gateway), '10.4.5.6')
  // A client cannot hide behind a forged trusted address at the left of the chain.
  await send(gateway, ['Host: h', 'X-Forwarded-For: 10.9.9.9, 198.51.100.9'])
  t.equal(await accessLogClient(gateway), '198.51.100.9')
})

void t.test(
  'upstream Host: the upstream own by default, the client one with preserve_host',
  async (t) => {
    const runtime = await startRuntime(t)
    const plain = await startFoundationGateway(t, { upstream: { url: runtime.url } })
    await send(plain, ['Host: portcullis.test'])
    t.equal(runtime.requests.at(-1)?.headers.host, new URL(runtime.url).host)
    const preserving = await startFoundationGateway(t, {
      upstream: { url: runtime.url, preserve_host: true },
    })
    await send(preserving, ['Host: portcullis.test'])
    t.equal(runtime.requests.at(-1)?.headers.host, 'portcullis.test')
    t.equal(runtime.requests.at(-1)?.headers['x-forwarded-host'], 'portcullis.test')
  },
)
