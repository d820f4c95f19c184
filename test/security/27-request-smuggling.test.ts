/**
 * Attack class 27 — HTTP request smuggling and desync (CL+TE, duplicate Content-Length, obs-fold,
 * bare LF, invalid chunk sizes, an empty field name): Node llhttp CVE-2022-32213, CVE-2022-32215,
 * CVE-2024-27982; HAProxy CVE-2023-25725, CVE-2023-40225. Node's strict parser refuses every form
 * in test/fixtures/attacks/smuggling/ with 400 and closes; the upstream never sees the hidden
 * request. Pipelined requests are authenticated one by one. `insecureHTTPParser` is never set and
 * the Node version is one with the llhttp fixes.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import t from 'tap'
import type { Config } from '../../src/config/schema.js'
import { serverSchema } from '../../src/config/sections/server.js'
import { createProxyServer } from '../../src/http/servers.js'
import { lintAs } from '../helpers/lint.js'
import { startRuntime } from '../helpers/runtime.js'
import { within } from '../helpers/wait.js'
import { bearer, jwt, securedGateway, sendRaw, unescape } from './harness.js'
import { projectUrl } from '../helpers/project-root.js'

const defaultServerSettings = serverSchema.parse({}) as Config['server']
const SMUGGLING = projectUrl('test/fixtures/attacks/smuggling/')
const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  auth: { excluded_route_paths: ['/echo', '/echo/**'] },
})

/** A corpus file as wire bytes, with its metadata. */
function load(name: string): { expect: string; why: string; keepAlive: boolean; bytes: Buffer } {
  const meta: Record<string, string> = {}
  const wire: string[] = []
  for (const line of readFileSync(new URL(name, SMUGGLING), 'utf8')
    .replace(/\n$/, '')
    .split('\n')) {
    const field = /^# (\w+): (.*)$/.exec(line)
    if (field !== null && wire.length === 0) meta[field[1] as string] = field[2] as string
    else
      wire.push(
        line.endsWith('\\') && !line.endsWith('\\\\')
          ? unescape(line.slice(0, -1))
          : `${unescape(line)}\r\n`,
      )
  }
  return {
    keepAlive: meta.connection === 'keep-alive',
    expect: meta.expect ?? '',
    why: meta.why ?? name,
    bytes: Buffer.from(wire.join(''), 'latin1'),
  }
}

const files = readdirSync(SMUGGLING)
  .filter((name) => name.endsWith('.txt'))
  .sort()

void t.test('every request of the smuggling corpus', async (t) => {
  t.ok(files.length >= 25, `${files.length} requests`)
  for (const file of files) {
    const { expect, why, keepAlive, bytes } = load(file)
    const label = `${file}: ${why}`
    const outcome = await sendRaw(gateway, runtime, bytes).catch((error: Error) => error)
    const seen = runtime.requests.map((request) => request.path)
    t.notOk(seen.includes('/config'), `${label}: the hidden request never arrives`)
    if (outcome instanceof Error) {
      t.fail(`${label}: ${outcome.message}`)
    } else if (expect === 'one') {
      t.equal(outcome.status, 200, label)
      t.same(seen, ['/echo'], `${label}: exactly one request upstream`)
    } else {
      t.equal(outcome.status, Number(expect), label)
      if (!keepAlive) t.equal(outcome.headers.connection, 'close', `${label}: not reused`)
      t.equal(outcome.started, 0, `${label}: the upstream saw nothing`)
    }
  }
})

/** Writes `data` on one connection and returns the status of every response, in order. */
function pipeline(data: string, port = gateway.port): Promise<number[]> {
  return within(
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1')
      let received = ''
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
      socket.on('error', reject)
      socket.on('close', () =>
        resolve([...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))),
      )
      socket.write(data)
    }),
    'the pipelined responses',
  )
}

void t.test('pipelined requests are authenticated one by one', async (t) => {
  const secured = await securedGateway(t, runtime)
  const token = await jwt(['agents:read'], { sub: 'alice' })
  const request = (path: string, lines: string[]) =>
    `GET ${path} HTTP/1.1\r\nHost: h\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n`
  runtime.clear()
  const data =
    request('/agents/a1', [bearer(token)]) +
    request('/config', []) +
    request('/agents/a1', ['Connection: close'])
  const statuses = await pipeline(data, secured.port)
  t.same(statuses, [200, 401, 401], 'the first request lends nothing to the next')
  t.same(
    runtime.requests.map((r) => r.path),
    ['/agents/a1'],
    'only the authenticated one went upstream',
  )
  t.same(
    await pipeline(request('/echo', []) + request('/echo', ['Connection: close'])),
    [200, 200],
    'plain pipelining works',
  )
})

void t.test('insecureHTTPParser is never set, and Node has the llhttp fixes', async (t) => {
  // src/ is checked by `npm run lint` (no-restricted-syntax in eslint.config.js): proven here.
  for (const code of [
    'createServer({ insecureHTTPParser: true })',
    'createServer({ insecureHTTPParser: lenient })',
    'server.insecureHTTPParser = true',
    "process.execArgv.push('--insecure-http-parser')",
  ]) {
    t.match(await lintAs('src/http/servers.ts', code), [/lenient HTTP parser/], code)
  }
  t.same(await lintAs('src/http/servers.ts', 'createServer({ insecureHTTPParser: false })'), [])
  const texts = [
    'package.json',
    'Dockerfile',
    ...readdirSync(projectUrl('helm/'), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ya?ml|json|tpl)$/.test(f))
      .map((f) => `helm/${f}`),
  ]
  for (const file of texts) {
    const text = readFileSync(projectUrl(file), 'utf8')
    t.notMatch(text, /insecure-http-parser|insecureHTTPParser:\s*true/i, file)
  }
  // Node keeps the option on the server (not in its types).
  const listener = createProxyServer(defaultServerSettings, () => undefined) as {
    insecureHTTPParser?: boolean
  }
  t.equal(listener.insecureHTTPParser, false, 'the proxy listener says so explicitly')
  t.notMatch(process.execArgv.join(' ') + (process.env.NODE_OPTIONS ?? ''), /insecure-http-parser/)
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
  // CVE-2024-27982 (llhttp) is fixed from 20.12.1; the engines field asks for 20.18.1.
  t.ok(major > 20 || (major === 20 && minor >= 18), `node ${process.versions.node}`)
  const engines = (
    JSON.parse(readFileSync(projectUrl('package.json'), 'utf8')) as { engines: { node: string } }
  ).engines.node
  t.match(engines, /^>=20\.(1[89]|[2-9]\d)\./, `engines ${engines}`)
})
