/**
 * The demo's start-up failures as a user meets them: one line naming the variable or option to
 * change, the exit code `portcullis serve` uses for the same failure, no stack trace, and nothing
 * left listening.
 */
import { createServer, type Server } from 'node:net'
import t from 'tap'
import { Child, childEnv, tsxArgs } from '../../helpers/child-process.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import type { Teardown } from '../../helpers/gateway.js'
import { isListening } from '../../helpers/ports.js'
import { closedPort } from '../../helpers/runtime.js'

const IN_USE = 'the address is already in use (another process listens there)'

/** A port something else listens on, for the test's duration. */
async function busyPort(t: Teardown): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return (server.address() as { port: number }).port
}

async function run(t: Teardown, args: string[], env: Record<string, string> = {}) {
  const child = new Child(t, tsxArgs(...args), childEnv(env))
  const { code } = await child.exit(90_000)
  return { code, stderr: child.stderr }
}

// Each run compiles its entry point: every case starts at once.
const busy = await busyPort(t)
const [runtimePort, gatewayAdminPort] = [await closedPort(), await closedPort()]
const [runtimeBusy, runtimeBad, gatewayBusy, optionBad, optionBusy] = await Promise.all([
  run(t, ['scripts/demo.ts'], { DEMO_RUNTIME_PORT: String(busy) }),
  run(t, ['scripts/demo.ts'], { DEMO_RUNTIME_PORT: 'seven' }),
  run(t, ['scripts/demo.ts'], {
    DEMO_RUNTIME_PORT: String(runtimePort),
    PORTCULLIS_PORT: String(busy),
    PORTCULLIS_ADMIN_PORT: String(gatewayAdminPort),
    PORTCULLIS_DATA_DIR: await freshEmbeddedDataDir(t),
  }),
  run(t, ['demo/runtime/main.ts', '--prot', '7777']),
  run(t, ['demo/runtime/main.ts', '--port', String(busy)]),
])

void t.test('npm run demo: the variable to change, in one line', async (t) => {
  t.equal(runtimeBusy.code, 3, 'exit 3: cannot listen')
  t.same(runtimeBusy.stderr, [
    `portcullis: cannot listen on 127.0.0.1:${busy} (DEMO_RUNTIME_PORT): ${IN_USE}`,
  ])

  t.equal(runtimeBad.code, 2, 'exit 2: a bad setting')
  t.same(runtimeBad.stderr, [
    'portcullis: DEMO_RUNTIME_PORT="seven": must be a port number (0-65535)',
  ])

  t.equal(gatewayBusy.code, 3)
  t.same(gatewayBusy.stderr, [
    `portcullis: cannot listen on 127.0.0.1:${busy} (server.port, PORTCULLIS_PORT): ${IN_USE}`,
  ])
  t.same(
    [await isListening(runtimePort), await isListening(gatewayAdminPort)],
    [false, false],
    'the runtime it had started is stopped, nothing listens',
  )
})

void t.test('the demo runtime: the option to change, in one line', async (t) => {
  t.equal(optionBad.code, 2)
  t.same(optionBad.stderr, [
    "demo runtime: Unknown option '--prot' (options: --host, --port, --sse-interval-ms, --os-id, --agentos, --agno-version)",
  ])
  t.equal(optionBusy.code, 3)
  t.same(optionBusy.stderr, [
    `demo runtime: cannot listen on 127.0.0.1:${busy} (--port): ${IN_USE}`,
  ])
})
