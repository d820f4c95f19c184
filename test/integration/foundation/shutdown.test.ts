import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { stringify } from 'yaml'
import { Child, cliArgs } from '../../helpers/child-process.js'
import { PASS_THROUGH_AUTH } from '../../helpers/foundation.js'
import type { Teardown } from '../../helpers/gateway.js'
import { httpRequest } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { waitFor, within } from '../../helpers/wait.js'

/** Runs `portcullis serve` (the real CLI) in a child process on ports 0; resolves once listening. */
async function serve(t: Teardown, upstreamUrl: string, server: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-shutdown-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'portcullis.yaml')
  writeFileSync(
    file,
    stringify({
      ...PASS_THROUGH_AUTH,
      server: { host: '127.0.0.1', port: 0, admin_host: '127.0.0.1', admin_port: 0, ...server },
      upstream: { url: upstreamUrl },
      logging: { level: 'info' },
    }),
  )
  const child = new Child(t, cliArgs('serve', '--config', file))
  const line = await child.line(
    (text) => text.includes('portcullis listening'),
    'the gateway to listen',
  )
  const { port } = JSON.parse(line) as { port: number }
  return { child, port, url: `http://127.0.0.1:${port}` }
}

/** How a new TCP connection to `port` ends: 'connected' or the error code. */
function tryConnect(port: number): Promise<string> {
  return within(
    new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve('connected')
      })
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    }),
    'a connection attempt',
  )
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  void t.test(
    `${signal}: the in-flight request completes, new connections are refused, exit 0`,
    async (t) => {
      const runtime = await startRuntime(t)
      const { child, port, url } = await serve(t, runtime.url, { shutdown_grace_ms: 10_000 })
      t.equal((await httpRequest(url, { path: '/health' })).status, 200, 'serving')

      const inFlight = httpRequest(url, { path: '/slow?ms=3000', timeoutMs: 30_000 })
      await waitFor(() => runtime.started === 2, 'the slow request to reach the upstream')
      child.process.kill(signal)
      await child.line((text) => text.includes('shutting down'), 'the shutdown to begin')

      t.equal(await tryConnect(port), 'ECONNREFUSED', 'a new connection is refused')
      const response = await inFlight
      t.equal(response.status, 200, 'the in-flight request completed')
      t.same(response.json(), { slept_ms: 3000 })
      const exit = await child.exit()
      t.same(exit, { code: 0, signal: null }, 'exit code 0')
      // Ordered by their timestamps: stdout lines written just before process.exit() can reach
      // the pipe out of order (pino's asynchronous destination).
      const records = child.stdout.map(
        (text) =>
          JSON.parse(text) as { msg?: string; path?: string; time: string; signal?: string },
      )
      const at = (match: (record: (typeof records)[number]) => boolean): number =>
        Date.parse(records.find(match)?.time ?? '')
      const shutdownAt = at((record) => record.msg === 'shutting down')
      const slowAt = at((record) => record.msg === 'request' && record.path === '/slow')
      const stoppedAt = at((record) => record.msg === 'portcullis stopped')
      t.ok(shutdownAt <= slowAt, 'the request was still in flight when the signal was handled')
      t.ok(slowAt <= stoppedAt, 'and finished before the gateway stopped')
      t.match(
        records.find((record) => record.msg === 'shutting down'),
        { signal },
      )
    },
  )
}

void t.test(
  'a request outliving shutdown_grace_ms is cut and the process still exits 0',
  async (t) => {
    const runtime = await startRuntime(t)
    const { child, url } = await serve(t, runtime.url, { shutdown_grace_ms: 300 })
    const inFlight = httpRequest(url, { path: '/slow?ms=20000', timeoutMs: 15_000 }).then(
      (response) => `status ${response.status}`,
      (error: unknown) => `error ${String(error)}`,
    )
    await waitFor(() => runtime.started === 1, 'the slow request to reach the upstream')
    child.process.kill('SIGTERM')
    // The upstream would answer after 20 s: only the grace bound can end things within the wait.
    t.same(await child.exit(15_000), { code: 0, signal: null }, 'exit code 0 within the bound')
    t.match(
      await within(inFlight, 'the cut request'),
      /^error /,
      'the client sees the connection end',
    )
    t.ok(
      child.stdout.some((text) => text.includes('shutdown grace period over')),
      'the cut is logged',
    )
  },
)

void t.test(
  'a quiet gateway still writes its lines: buffered standard output is flushed every second',
  async (t) => {
    const runtime = await startRuntime(t)
    const { child, url } = await serve(t, runtime.url)
    t.equal((await httpRequest(url, { path: '/health' })).status, 200)
    // One short line is far below the 4 KiB block: only the periodic flush can send it.
    const line = await child.line(
      (text) => text.includes('"msg":"request"') && text.includes('"path":"/health"'),
      'the access line of the only request',
    )
    t.match(JSON.parse(line), { method: 'GET', path: '/health', status: 200 })
    t.equal(child.process.exitCode, null, 'written while the gateway keeps running')
  },
)

void t.test(
  'SIGTERM right after a burst of requests: every access line reaches standard output',
  async (t) => {
    const runtime = await startRuntime(t)
    const { child, url } = await serve(t, runtime.url)
    const count = 300
    const statuses = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        httpRequest(url, { path: `/health?n=${index}` }).then((response) => response.status),
      ),
    )
    t.same(new Set(statuses), new Set([200]))
    // The lines are still buffered (in blocks of about 64 KB): only the
    // shutdown's flushes can write them.
    child.process.kill('SIGTERM')
    t.same(await child.exit(), { code: 0, signal: null })
    const logged = child.stdout
      .map((text) => JSON.parse(text) as { msg?: string; path?: string })
      .filter((record) => record.msg === 'request' && record.path === '/health')
    t.equal(logged.length, count, 'one access line per request, none lost')
  },
)
