import { randomBytes } from 'node:crypto'
import { startAgentRuntime, type AgentRuntime } from '../demo/runtime/index.js'
import { reportFailure } from '../src/cli/failure.js'
import { loadConfig } from '../src/config/load.js'
import { createGateway, type Gateway } from '../src/gateway.js'
import { listenFailure } from '../src/http/servers.js'
import { createLogger } from '../src/logger.js'
import { checkStoreFree } from '../src/service-accounts/create-store.js'
import { StartupError } from '../src/startup-error.js'
import { watchAncestors } from './watch-ancestors.js'

// The demo: the AgentOS-like runtime on 7777, the gateway on 8080 in front of it (security-key
// mode, embedded store), and the calls to try. Ports can be moved with PORTCULLIS_PORT etc.
const securityKey = process.env.OS_SECURITY_KEY ?? `demo-${randomBytes(24).toString('hex')}`
const RUNTIME_HOST = '127.0.0.1'
const dataDir = process.env.PORTCULLIS_DATA_DIR ?? 'data/demo'

/** DEMO_RUNTIME_PORT, or 7777. */
function runtimePort(): number {
  const text = process.env.DEMO_RUNTIME_PORT ?? '7777'
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN
  if (!(port <= 65_535)) {
    throw new StartupError(
      'config',
      `DEMO_RUNTIME_PORT=${JSON.stringify(text)}: must be a port number (0-65535)`,
    )
  }
  return port
}

async function startRuntime(): Promise<AgentRuntime> {
  const port = runtimePort()
  try {
    return await startAgentRuntime({ host: RUNTIME_HOST, port, sseIntervalMs: 300 })
  } catch (error) {
    throw listenFailure(error, port, RUNTIME_HOST, {
      port: 'DEMO_RUNTIME_PORT',
      host: 'the demo runtime host',
    })
  }
}

/**
 * The runtime, then the gateway in front of it. A failure (a port in use, a bad variable) is one
 * line naming the variable to change, as `portcullis serve` reports it, and the process exits
 * with the same code; nothing is left running.
 */
async function start(): Promise<{
  runtime: AgentRuntime
  gateway: Gateway
  url: string
  adminUrl: string
}> {
  // One process per data directory: a second demo on the same one stops here, before its runtime.
  await checkStoreFree({ url: process.env.DATABASE_URL || null, data_dir: dataDir })
  const runtime = await startRuntime()
  let gateway: Gateway | undefined
  try {
    const config = loadConfig('config/demo.yaml', {
      env: {
        ...process.env,
        OS_SECURITY_KEY: securityKey,
        PORTCULLIS_UPSTREAM_URL: runtime.url,
        PORTCULLIS_DATA_DIR: dataDir,
      },
    })
    gateway = await createGateway(config, {
      logger: createLogger({ level: config.logging.level }),
    })
    const { url, adminUrl } = await gateway.start()
    return { runtime, gateway, url, adminUrl }
  } catch (error) {
    await gateway?.stop().catch(() => undefined)
    await runtime.close()
    throw error
  }
}

let started: Awaited<ReturnType<typeof start>>
try {
  started = await start()
} catch (error) {
  process.exit(reportFailure(error, (text) => process.stderr.write(text)))
}
const { runtime, gateway, url, adminUrl } = started

process.stdout.write(`
Portcullis demo
  gateway          ${url}   (in front of the demo agent runtime at ${runtime.url})
  admin            ${adminUrl}/healthz  /readyz  /metrics
  security key     ${securityKey}

Try it:
  # no credential: refused by the gateway
  curl -i ${url}/agents

  # mint a service-account token (default scopes: agents:run, teams:run, workflows:run, sessions:read, config:read)
  curl -s -X POST ${url}/service-accounts -H 'Authorization: Bearer ${securityKey}' \\
       -H 'Content-Type: application/json' -d '{"name":"demo-bot"}'

  # run an agent with it (the run is attributed to sa:demo-bot whatever user_id you send), streamed
  curl -N -X POST ${url}/agents/a1/runs -H "Authorization: Bearer <token>" \\
       -F message=hello -F stream=true -F user_id=someone-else

  # listing agents needs agents:read, which the default scopes do not include: 403
  curl -i ${url}/agents -H "Authorization: Bearer <token>"

  # list and revoke
  curl -s ${url}/service-accounts -H 'Authorization: Bearer ${securityKey}'
  curl -i -X DELETE ${url}/service-accounts/<id> -H 'Authorization: Bearer ${securityKey}'

Stop: Ctrl-C, or kill ${process.pid} (or the npm process): the gateway and the runtime stop together.
`)

let stopping = false
const stop = (why: string): void => {
  if (stopping) return
  stopping = true
  process.stdout.write(`\nStopping the demo (${why}).\n`)
  // Whatever happens to a graceful stop, the demo must not outlive what started it.
  setTimeout(() => process.exit(1), 5_000).unref()
  void gateway
    .stop()
    .then(() => runtime.close())
    .then(() => process.exit(0))
}
process.once('SIGINT', () => stop('SIGINT'))
process.once('SIGTERM', () => stop('SIGTERM'))
process.once('SIGHUP', () => stop('SIGHUP'))
watchAncestors(() => stop('the process that started it exited'))
