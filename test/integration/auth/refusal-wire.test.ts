/**
 * A refusal is written by the gateway itself, its fields and body in one head and one end: on the
 * wire it must frame exactly as any answer does, so a keep-alive connection goes on after it, a
 * HEAD gets the head without the body, and an HTTP/1.0 client's connection is closed.
 */
import { connect } from 'node:net'
import t from 'tap'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { startGateway } from '../../helpers/gateway.js'
import { rawExchange, rawRequestHead } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'

const SECURITY_KEY = 'refusal-wire-security-key-0123456789'
const runtime = await startRuntime(t)
const gateway = await startGateway(t, {
  upstream: { url: runtime.url },
  auth: { security_key: SECURITY_KEY },
  cors: { allowed_origins: ['https://app.example'] },
  // The throttled client poses as its own address, apart from the other tests' requests.
  server: { trusted_proxies: ['127.0.0.1/32'] },
  service_accounts: { max_failed_lookups: 3 },
})

/** Sends `data` on one connection and returns every byte the gateway wrote until it closed. */
function exchangeUntilClosed(data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(gateway.port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.write(data)
  })
}

interface Answer {
  readonly status: number
  readonly fields: readonly (readonly [string, string])[]
  readonly body: string
}

/** Splits a stream of answers by their heads and Content-Length (`bodiless`: a HEAD's answer). */
function answersIn(stream: string, bodiless: readonly boolean[]): Answer[] {
  const answers: Answer[] = []
  let at = 0
  for (const noBody of bodiless) {
    const end = stream.indexOf('\r\n\r\n', at)
    if (end === -1) throw new Error(`no further head in ${JSON.stringify(stream.slice(at))}`)
    const [statusLine = '', ...lines] = stream.slice(at, end).split('\r\n')
    const fields = lines.map((line) => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const
    })
    const length = Number(fields.find(([name]) => name === 'content-length')?.[1] ?? 0)
    const bodyLength = noBody ? 0 : length
    answers.push({
      status: Number(statusLine.split(' ')[1]),
      fields,
      body: stream.slice(end + 4, end + 4 + bodyLength),
    })
    at = end + 4 + bodyLength
  }
  if (at !== stream.length) throw new Error(`bytes after the answers: ${stream.slice(at)}`)
  return answers
}

const field = (answer: Answer, name: string) =>
  answer.fields.filter(([fieldName]) => fieldName === name).map(([, value]) => value)

void t.test('refusals on one keep-alive connection, then a proxied answer on it', async (t) => {
  const unknown = mintToken().token
  const stream = await exchangeUntilClosed(
    rawRequestHead('GET', '/agents', ['Host: gw']) +
      rawRequestHead('HEAD', '/agents', ['Host: gw', 'Origin: https://app.example']) +
      rawRequestHead('GET', '/agents', ['Host: gw', `Authorization: Bearer ${unknown}`]) +
      rawRequestHead('GET', '/agents', [
        'Host: gw',
        `Authorization: Bearer ${SECURITY_KEY}`,
        'Connection: close',
      ]),
  )
  const [bare, head, unknownToken, allowed] = answersIn(stream, [false, true, false, false])
  if (bare === undefined || head === undefined || unknownToken === undefined) {
    throw new Error('fewer answers than requests')
  }

  t.equal(bare.status, 401)
  t.same(JSON.parse(bare.body), { detail: 'Authorization header required' })
  t.same(field(bare, 'www-authenticate'), ['Bearer'])
  t.same(field(bare, 'content-type'), ['application/json'])
  t.same(field(bare, 'content-length'), [String(Buffer.byteLength(bare.body))])
  t.match(field(bare, 'x-request-id'), [/^[0-9a-f-]{36}$/])
  t.same(field(bare, 'connection'), ['keep-alive'], 'the connection goes on after a refusal')
  t.same(field(bare, 'access-control-allow-origin'), [], 'no Origin, no CORS fields')

  t.equal(head.status, 401, 'a HEAD is refused alike')
  t.equal(head.body, '', 'without the body: the next answer starts right after the head')
  t.same(field(head, 'content-length'), field(bare, 'content-length'), "the body's length")
  t.same(field(head, 'access-control-allow-origin'), ['https://app.example'])
  t.same(field(head, 'vary'), ['Origin'])

  t.equal(unknownToken.status, 401)
  t.same(field(unknownToken, 'www-authenticate'), ['Bearer error="invalid_token"'])
  t.same(JSON.parse(unknownToken.body), { detail: 'Invalid or expired service account token' })

  t.equal(allowed?.status, 200, 'the same connection still carries a proxied request')
  const ids = [bare, head, unknownToken, allowed].map((answer) => field(answer!, 'x-request-id'))
  t.same(
    ids.map((list) => list.length),
    [1, 1, 1, 1],
    'each answer has one X-Request-Id',
  )
  t.equal(new Set(ids.flat()).size, 4, 'and each its own')
})

void t.test('an HTTP/1.0 client is refused and its connection closed', async (t) => {
  const stream = await exchangeUntilClosed('GET /agents HTTP/1.0\r\nHost: gw\r\n\r\n')
  const [answer] = answersIn(stream, [false])
  t.equal(answer?.status, 401)
  t.same(answer === undefined ? [] : field(answer, 'connection'), ['close'])
})

void t.test('a refusal with its own fields keeps them (a 429 with Retry-After)', async (t) => {
  const address = '127.0.0.9'
  let throttled: Awaited<ReturnType<typeof rawExchange>> | undefined
  // The failed-lookup throttle trips after three unknown tokens from one address.
  for (let attempt = 0; attempt < 10 && throttled === undefined; attempt++) {
    const reply = await rawExchange(
      gateway.port,
      rawRequestHead('GET', '/agents', [
        'Host: gw',
        `Authorization: Bearer ${mintToken().token}`,
        `X-Forwarded-For: ${address}`,
        'Connection: close',
      ]),
    )
    if (reply.status === 429) throttled = reply
  }
  t.ok(throttled !== undefined, 'the throttle trips')
  t.match(throttled?.headers['retry-after'], /^\d+$/)
  t.equal(throttled?.headers['content-length'], String(Buffer.byteLength(throttled?.body ?? '')))
  t.equal(throttled?.headers['content-type'], 'application/json')
})
