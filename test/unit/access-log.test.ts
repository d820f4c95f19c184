import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { once } from 'node:events'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { AccessLog, hundredths, IsoClock, type AccessRecord } from '../../src/access-log.js'
import {
  normalizeAddress,
  resolveClientAddress,
  TrustedProxies,
} from '../../src/inbound/client-address.js'
import { chooseRequestId } from '../../src/inbound/request-id.js'
import { createLogger, STDOUT_BLOCK_BYTES } from '../../src/logger.js'
import { REDACTED } from '../../src/redact.js'
import type { Timers } from '../../src/timers.js'
import { LogCapture } from '../helpers/log-capture.js'
import { PROJECT_ROOT } from '../helpers/project-root.js'
import { waitFor } from '../helpers/wait.js'

const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLWJ5dGVz'
const serviceToken = 'svc_pat_0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg1a2B3c'

/** Writes a line and hands it over at once, as the end of the event-loop turn would. */
function writeNow(access: AccessLog, line: AccessRecord): void {
  access.write(line)
  access.flush()
}

const record = {
  req_id: 'r-1',
  method: 'GET',
  path: '/agents/a1',
  status: 200,
  duration_ms: 1.25,
  client: '10.0.0.1',
  route: '/agents/{agent_id}',
  reason: undefined,
}

void t.test('access lines go to the main logger destination, as JSON', async (t) => {
  const logs = new LogCapture()
  writeNow(new AccessLog(createLogger({ level: 'info', destination: logs })), record)
  const [line] = logs.records()
  t.match(line, { ...record, msg: 'request', service: 'portcullis', level: 30 })
  t.type(line?.time, 'string')
})

void t.test('a token in the path is redacted', async (t) => {
  const logs = new LogCapture()
  const access = new AccessLog(createLogger({ level: 'info', destination: logs }))
  access.write({ ...record, path: `/agents/${jwt}/${serviceToken}` })
  access.flush()
  t.notMatch(logs.text, jwt)
  t.notMatch(logs.text, serviceToken)
  t.match(logs.records()[0], { path: `/agents/${REDACTED}/${REDACTED}` })
})

void t.test(
  'the escaped fields (path, route label) are valid JSON, whatever their characters',
  async (t) => {
    const logs = new LogCapture()
    const access = new AccessLog(createLogger({ level: 'info', destination: logs }))
    // The edges of what is written between quotes as it is: control characters, DEL, `"`, `\`,
    // and beyond ASCII.
    const odd = ['\u001f', '\u0020', '~', '\u007f', '"', '\\', 'é', '\u2028', '']
    for (const text of odd) access.write({ ...record, path: `/p${text}`, route: `r${text}` })
    access.flush()
    t.same(
      logs.records().map(({ path, route }) => [path, route]),
      odd.map((text) => [`/p${text}`, `r${text}`]),
    )
  },
)

/** What a JSON string holds as it is: printable ASCII but `"` and `\`. */
const JSON_SAFE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/

void t.test(
  'the fields written as they are come only from sources that make JSON-safe text',
  async (t) => {
    // Request ids: whatever a trusted proxy offers, the id chosen is JSON-safe.
    const offered = [
      'a"b',
      'a\\b',
      'a\u0001b',
      'é',
      'a b',
      '\u2028',
      `${'x'.repeat(129)}`,
      'req-1.2:3_4',
    ]
    for (let index = 0; index < 2_000; index++) {
      offered.push(
        String.fromCharCode(
          ...Array.from({ length: 1 + (index % 40) }, () => Math.floor(Math.random() * 0x30a0)),
        ),
      )
    }
    const ids = offered.map((text) => chooseRequestId(text, true))
    t.same(
      ids.filter((id) => !JSON_SAFE.test(id)),
      [],
      'every request id',
    )
    t.equal(chooseRequestId('req-1.2:3_4', true), 'req-1.2:3_4', 'a well-formed one is kept')

    // Client addresses: what a trusted proxy's X-Forwarded-For says, after the socket's address.
    const trusted = new TrustedProxies(['127.0.0.1/32'])
    const clients = offered.map((text) =>
      resolveClientAddress('127.0.0.1', `${text}, 127.0.0.1`, trusted),
    )
    // An IPv6 address with its zone is the widest an address gets.
    const zoned = resolveClientAddress('127.0.0.1', '10.0.0.1, fe80::1%eth0', trusted)
    t.equal(zoned, 'fe80::1%eth0', 'a zoned IPv6 hop is the client')
    clients.push(zoned, normalizeAddress(undefined), normalizeAddress('::ffff:10.1.2.3'))
    t.same(
      clients.filter((client) => !JSON_SAFE.test(client)),
      [],
      'every client address',
    )

    // Methods: Node's parser refuses one outside its table before a request exists.
    const server = createServer((_req, res) => res.end())
    t.teardown(() => server.close())
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    for (const method of ['G"T', 'G\\T', 'GÉT']) {
      const socket = connect(port, '127.0.0.1')
      socket.end(`${method} / HTTP/1.1\r\nHost: x\r\n\r\n`, 'latin1')
      let answer = ''
      for await (const chunk of socket) answer += String(chunk)
      t.match(answer, /^HTTP\/1\.1 400 /, `${JSON.stringify(method)} refused by the parser`)
    }
  },
)

void t.test('the main logger level applies: nothing below it is written', async (t) => {
  const logs = new LogCapture()
  writeNow(new AccessLog(createLogger({ level: 'warn', destination: logs })), record)
  t.equal(logs.lines.length, 0)
})

void t.test('a line is the main logger line for the same record, key for key', async (t) => {
  const access = new LogCapture()
  const main = new LogCapture()
  const odd = { ...record, path: '/a"b\\c\u0001\u2028é', reason: 'jwt.signature' as const }
  writeNow(new AccessLog(createLogger({ level: 'info', destination: access })), odd)
  createLogger({ level: 'info', destination: main }).info(odd, 'request')
  const [line] = access.records()
  const [reference] = main.records()
  t.same(Object.keys(line ?? {}), Object.keys(reference ?? {}), 'same keys, same order')
  t.same({ ...line, time: 0 }, { ...reference, time: 0 })
  t.match(line?.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.equal(access.lines.length, 1, 'one line per record')
})

void t.test('a record without a reason has no reason key', async (t) => {
  const logs = new LogCapture()
  writeNow(new AccessLog(createLogger({ level: 'info', destination: logs })), record)
  t.notOk('reason' in (logs.records()[0] ?? {}))
})

void t.test('each line carries its own reason, however often reasons repeat', async (t) => {
  const logs = new LogCapture()
  const access = new AccessLog(createLogger({ level: 'info', destination: logs }))
  const reasons = [
    'credential.missing',
    'service_account.throttled',
    'credential.missing',
    undefined,
    'http.header_overflow',
    'service_account.throttled',
  ] as const
  for (const reason of reasons) access.write({ ...record, status: 401, reason })
  access.flush()
  t.same(
    logs.records().map((line) => line.reason),
    reasons,
  )
})

void t.test('a 5xx the gateway answered is a warning; the upstream’s own 5xx is not', async (t) => {
  const logs = new LogCapture()
  const logger = createLogger({ level: 'warn', destination: logs })
  const access = new AccessLog(logger)
  access.write({ ...record, status: 502, reason: 'upstream.dns' })
  access.write({ ...record, status: 502, reason: undefined })
  access.write({ ...record, status: 401, reason: 'credential.missing' })
  access.flush()
  t.same(
    logs.records().map((line) => [line.level, line.status, line.reason]),
    [[40, 502, 'upstream.dns']],
    'at level warn only the gateway’s own 502 is written, as a warning',
  )
  logger.level = 'info'
  access.write({ ...record, status: 504, reason: 'upstream.timeout' }, false)
  access.write({ ...record, status: 200 }, false)
  access.flush()
  t.same(
    logs.records().map((line) => [line.level, line.status]),
    [
      [40, 502],
      [40, 504],
    ],
    'with the access log off only warnings are written',
  )
  access.write({ ...record, status: 201 })
  logger.level = 'error'
  access.write({ ...record, status: 503, reason: 'upstream.timeout' })
  access.flush()
  t.same(
    logs.records().map((line) => [line.level, line.status]),
    [
      [40, 502],
      [40, 504],
      [30, 201],
    ],
    'a level change applies to the next line: info written at info, a warning not at error',
  )
})

/** Timers fired by the test: the hand-off delay without waiting for it. */
class ManualTimers implements Timers {
  readonly armed: { callback: () => void; ms: number; cancelled: boolean }[] = []
  set(callback: () => void, ms: number): { cancel(): void } {
    const timer = { callback, ms, cancelled: false }
    this.armed.push(timer)
    return { cancel: () => (timer.cancelled = true) }
  }
  fire(): void {
    for (const timer of this.armed.splice(0)) if (!timer.cancelled) timer.callback()
  }
}

function countingDestination(): { writes: string[]; logs: LogCapture; write(chunk: string): void } {
  const logs = new LogCapture()
  const writes: string[] = []
  return {
    writes,
    logs,
    write(chunk: string): void {
      writes.push(chunk)
      logs.write(chunk)
    },
  }
}

void t.test(
  'lines are handed to the destination in blocks, at the latest after a delay',
  async (t) => {
    const destination = countingDestination()
    const { writes, logs } = destination
    const timers = new ManualTimers()
    const access = new AccessLog(createLogger({ level: 'info', destination }), timers)
    access.write({ ...record, req_id: 'r-1' })
    access.write({ ...record, req_id: 'r-2' })
    t.equal(writes.length, 0, 'nothing is written while the block fills')
    t.same(
      timers.armed.map((timer) => timer.ms),
      [50],
      'one hand-off armed for the first line, 50 ms later',
    )
    timers.fire()
    t.equal(writes.length, 1, 'the delay over: one write')
    t.same(
      logs.records().map((line) => line.req_id),
      ['r-1', 'r-2'],
    )
    access.write({ ...record, req_id: 'r-3' })
    access.flush()
    t.equal(writes.length, 2, 'flush hands over what is pending at once (shutdown)')
    access.flush()
    t.equal(writes.length, 2, 'nothing pending: no write')
    timers.fire()
    t.equal(writes.length, 2, 'the hand-off flush cancelled finds nothing to do')

    // A full block goes at once: about 64 KB of lines in one write, none held back.
    let count = 0
    while (writes.length === 2) access.write({ ...record, req_id: `b-${count++}` })
    t.ok((writes[2]?.length ?? 0) >= STDOUT_BLOCK_BYTES, 'a block of at least 64,000 characters')
    t.ok((writes[2]?.length ?? 0) < STDOUT_BLOCK_BYTES + 1_000, 'and one line more at most')
    t.equal(logs.records().length, 3 + count, 'every line of the block written')
    t.equal(timers.armed.filter((timer) => !timer.cancelled).length, 0, 'no hand-off left armed')
  },
)

void t.test('without injected timers the hand-off happens by itself', async (t) => {
  const destination = countingDestination()
  const access = new AccessLog(createLogger({ level: 'info', destination }))
  access.write({ ...record, req_id: 'r-1' })
  await waitFor(() => destination.writes.length === 1, 'the hand-off')
  t.same(
    destination.logs.records().map((line) => line.req_id),
    ['r-1'],
  )
})

void t.test('a destination that throws loses the lines, not the process', async (t) => {
  let calls = 0
  const destination = {
    write(): void {
      calls += 1
      throw new Error('SonicBoom destroyed')
    },
  }
  const timers = new ManualTimers()
  const access = new AccessLog(createLogger({ level: 'info', destination }), timers)
  access.write(record)
  timers.fire()
  t.equal(calls, 1, 'the hand-off tried once and went on')
  access.write(record)
  t.doesNotThrow(() => access.flush())
})

void t.test("the line's time is the ISO time of its millisecond, across minutes and days", (t) => {
  const start = Date.UTC(2026, 10, 27, 23, 58, 59, 990)
  let ms = start
  const clock = new IsoClock(() => ms)
  const wrong: string[] = []
  for (; ms < start + 2 * 60_000 + 25; ms += 7) {
    const expected = new Date(ms).toISOString()
    if (clock.now() !== expected) wrong.push(expected)
  }
  t.same(wrong, [], 'every millisecond of two minutes and a day boundary, seven apart')
  t.equal(clock.now(), clock.now(), 'the same millisecond, the same text')
  ms = Date.UTC(2026, 10, 27, 0, 0, 0, 5)
  t.equal(clock.now(), '2026-11-27T00:00:00.005Z', 'back in time too')
  t.end()
})

void t.test('held lines are written when the process dies of an uncaught error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-access-exit-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'out.log')
  const module = (path: string) => JSON.stringify(pathToFileURL(join(PROJECT_ROOT, path)).href)
  // Standard output as the gateway opens it (createLogger's own: blocks of 64 KB, asynchronous,
  // the access lines handed over encoded), a file here; the exit hook as `portcullis serve`
  // registers it, then an error nothing catches.
  const script = `
    import { createLogger } from ${module('.build/src/logger.js')}
    import { AccessLog } from ${module('.build/src/access-log.js')}
    const logger = createLogger({ level: 'info' })
    const access = new AccessLog(logger)
    process.once('exit', () => access.flushSync())
    logger.info('before')
    // Three hand-offs: ASCII, then a path and a route beyond it (UTF-8), then ASCII again.
    const record = ${JSON.stringify(record)}
    access.write({ ...record, req_id: 'r-1' })
    access.flush()
    access.write({ ...record, req_id: 'r-2', path: '/agents/é', route: 'ü' })
    access.flush()
    access.write({ ...record, req_id: 'r-3' })
    logger.info({ path: '/é' }, 'after')
    throw new Error('nothing catches this')
  `
  const out = openSync(file, 'w')
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', out, 'pipe'],
  })
  closeSync(out)
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  t.equal(code, 1, 'the uncaught error ended the process')
  t.match(stderr, 'nothing catches this')
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) => JSON.parse(line) as { msg: string; req_id?: string; path?: string; route?: string },
    )
  t.same(
    lines.map((line) => line.req_id ?? line.msg),
    ['before', 'r-1', 'r-2', 'after', 'r-3'],
    'every line reached the file, whole, in the order it was handed over (r-3 held until the exit)',
  )
  t.equal(lines[3]?.path, '/é', "the logger's own lines are encoded as UTF-8")
  t.same(
    lines.filter((line) => line.req_id !== undefined).map((line) => [line.path, line.route]),
    [
      ['/agents/a1', '/agents/{agent_id}'],
      ['/agents/é', 'ü'],
      ['/agents/a1', '/agents/{agent_id}'],
    ],
    'access lines beyond ASCII are encoded as UTF-8, those around them as they are',
  )
})

void t.test('a duration is written as JavaScript writes the number', async (t) => {
  for (const ms of [
    0, 0.01, 0.07, 0.1, 0.5, 1, 1.05, 1.5, 12, 99.99, 100.1, 2_500.3, 1_234_567.89,
  ]) {
    t.equal(hundredths(ms), String(ms), `${ms}`)
  }
  // Every hundredth up to 20 s, and spread further out.
  let differing = 0
  for (let total = 0; total <= 2_000_000; total++) {
    const ms = total / 100
    if (hundredths(ms) !== String(ms)) differing++
  }
  for (let total = 2_000_000; total <= 1e12; total = Math.ceil(total * 1.001) + 7) {
    const ms = total / 100
    if (hundredths(ms) !== String(ms)) differing++
  }
  t.equal(differing, 0, 'no hundredth written differently')
  t.equal(hundredths(-1.5), '-1.5', 'what the observer never gives is written as it is')
  t.equal(hundredths(1e22), '1e+22')
})
