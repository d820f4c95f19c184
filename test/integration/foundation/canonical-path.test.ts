import t from 'tap'
import { startFoundationGateway } from '../../helpers/foundation.js'
import { accessLogLine } from '../../helpers/log-records.js'
import { rawExchange, rawRequestHead } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'

const INVALID_PATH = '{"detail":"Invalid request path"}'

/** Request targets the canonical path refuses: each would mean something else to some backend. */
const refused: [target: string, why: string][] = [
  ['/echo/../admin', 'dot-dot segment'],
  ['/echo/./admin', 'dot segment'],
  ['/echo/..', 'trailing dot-dot'],
  ['/echo/.', 'trailing dot'],
  ['/..', 'root dot-dot'],
  ['/echo/..;/admin', 'dot-dot with semicolon'],
  ['/echo;jsessionid=1', 'semicolon parameter'],
  ['/echo/%2e%2e/admin', 'encoded dot-dot'],
  ['/echo/%2E%2E/admin', 'encoded dot-dot, upper case'],
  ['/echo/.%2e/admin', 'half-encoded dot-dot'],
  ['/echo/%2e/admin', 'encoded dot'],
  ['/echo/a%2eb', 'any encoded dot'],
  ['/echo/%252e%252e/admin', 'double-encoded dot-dot'],
  ['/echo%2Fadmin', 'encoded slash'],
  ['/echo%2fadmin', 'encoded slash, lower case'],
  ['/echo%5Cadmin', 'encoded backslash'],
  ['/echo\\admin', 'backslash'],
  ['/echo/..\\admin', 'dot-dot backslash'],
  ['/echo%00', 'encoded NUL'],
  ['/echo%0a', 'encoded LF'],
  ['/echo%0D%0AX-Injected:%201', 'encoded CRLF'],
  ['/echo%7f', 'encoded DEL'],
  ['/echo%3Bx', 'encoded semicolon'],
  ['/echo%3Fx', 'encoded question mark'],
  ['/echo%23x', 'encoded hash'],
  ['/echo%25', 'encoded percent'],
  ['/echo#fragment', 'fragment'],
  ['/echo?x=1#fragment', 'fragment after the query'],
  ['//echo', 'leading double slash'],
  ['//evil.example/echo', 'protocol-relative form'],
  ['/echo//admin', 'inner double slash'],
  ['//', 'only slashes'],
  ['/echo/%', 'truncated escape'],
  ['/echo/%4', 'short escape'],
  ['/echo/%zz', 'non-hex escape'],
  ['/echo/%C0%AE%C0%AE', 'overlong UTF-8 dots'],
  ['/echo/%C0%AF', 'overlong UTF-8 slash'],
  ['/echo/%E0%80%AF', 'overlong 3-byte slash'],
  ['/echo/%FF', 'invalid UTF-8'],
  ['/echo/%C3', 'truncated UTF-8'],
  ['/echo/%ED%A0%80', 'UTF-16 surrogate in UTF-8'],
  ['http://evil.example/echo', 'absolute form'],
  ['*', 'asterisk form'],
  ['/echo/a"b', 'raw double quote'],
  ['/echo/<script>', 'raw angle brackets'],
  ['/echo/{id}', 'raw braces'],
  ['/echo/a|b', 'raw pipe'],
  ['/echo/a^b', 'raw caret'],
  ['/echo/a`b', 'raw backtick'],
]

/** Targets Node's HTTP parser refuses before the gateway sees them: 400 all the same. */
const unparseable: [target: string, why: string][] = [
  ['echo', 'no leading slash'],
  ['/echo/a b', 'raw space'],
  ['/echo/\u00e9t\u00e9', 'raw non-ASCII'],
  ['/echo/a\tb', 'raw tab'],
]

/** Accepted targets: [target, the path the upstream decodes, the target the upstream receives]. */
const accepted: [target: string, path: string, rawUrl: string][] = [
  ['/', '/', '/'],
  ['/echo', '/echo', '/echo'],
  ['/echo/', '/echo', '/echo'],
  ['/echo///', '/echo', '/echo'],
  ['/echo/a/b/', '/echo/a/b', '/echo/a/b'],
  ['/echo/?a=1', '/echo', '/echo?a=1'],
  ['/echo?', '/echo', '/echo'],
  ['/echo/a%31', '/echo/a1', '/echo/a1'],
  ['/echo/%61%62', '/echo/ab', '/echo/ab'],
  ['/echo/%41', '/echo/A', '/echo/A'],
  ['/echo/%7E', '/echo/~', '/echo/~'],
  ['/echo/with%20space', '/echo/with space', '/echo/with%20space'],
  ['/echo/caf%c3%a9', '/echo/caf\u00e9', '/echo/caf%C3%A9'],
  ['/echo/%C3%A9t%C3%A9', '/echo/\u00e9t\u00e9', '/echo/%C3%A9t%C3%A9'],
  ['/echo/%22quoted%22', '/echo/"quoted"', '/echo/%22quoted%22'],
  ['/echo/a%7Cb', '/echo/a|b', '/echo/a%7Cb'],
  ['/echo/a%2Bb', '/echo/a+b', '/echo/a+b'],
  ['/echo/..a', '/echo/..a', '/echo/..a'],
  ['/echo/a..', '/echo/a..', '/echo/a..'],
  ['/echo/.well', '/echo/.well', '/echo/.well'],
  ['/echo/a.b', '/echo/a.b', '/echo/a.b'],
  ['/echo/message:send', '/echo/message:send', '/echo/message:send'],
  ["/echo/!$&'()*+,=:@~-_", "/echo/!$&'()*+,=:@~-_", "/echo/!$&'()*+,=:@~-_"],
  ['/Echo', '/Echo', '/Echo'],
  ['/echo?x=%2F..%2F&y=a%00b', '/echo', '/echo?x=%2F..%2F&y=a%00b'],
  ['/echo/?x=/../', '/echo', '/echo?x=/../'],
  ['/echo///?x=1&x=2', '/echo', '/echo?x=1&x=2'],
]

void t.test('each ambiguous path is refused with 400 before the upstream sees it', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  for (const [target, why] of refused) {
    for (const method of ['GET', 'POST', 'OPTIONS']) {
      const before = runtime.started
      const lines = ['Host: portcullis.test']
      const body = method === 'POST' ? 'message=hello' : ''
      if (method === 'POST') {
        lines.push(
          'Content-Type: application/x-www-form-urlencoded',
          `Content-Length: ${body.length}`,
        )
      }
      const response = await rawExchange(gateway.port, rawRequestHead(method, target, lines) + body)
      t.equal(response.status, 400, `${method} ${why}: ${target}`)
      t.equal(response.body, INVALID_PATH, `${method} ${why}: the JSON detail`)
      t.equal(runtime.started, before, `${method} ${why}: the upstream saw nothing`)
    }
  }
  const logged = await accessLogLine(gateway.logs, (record) => record.status === 400)
  t.match(logged, { reason: /^path\./ }, 'the access log says why')
})

void t.test('targets the HTTP parser refuses get 400 and never reach the upstream', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  for (const [target, why] of unparseable) {
    const response = await rawExchange(
      gateway.port,
      Buffer.from(rawRequestHead('GET', target, ['Host: portcullis.test']), 'utf8'),
    )
    t.equal(response.status, 400, `${why}: ${JSON.stringify(target)}`)
    t.match(response.headers['content-type'], /^application\/json/, `${why}: a JSON body`)
  }
  t.equal(runtime.started, 0, 'the upstream saw nothing')
})

void t.test('each accepted path reaches the upstream as exactly the canonical path', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  for (const [target, path, rawUrl] of accepted) {
    const response = await rawExchange(
      gateway.port,
      rawRequestHead('GET', target, ['Host: portcullis.test']),
    )
    const recorded = runtime.requests.at(-1)
    runtime.clear()
    t.not(response.status, 400, `${target} accepted`)
    t.equal(recorded?.rawUrl, rawUrl, `${target}: the upstream received ${rawUrl}`)
    t.equal(recorded?.path, path, `${target}: the upstream decoded ${path}`)
  }
})
