/**
 * CLI: `tsx demo/runtime/main.ts --port 7777 --host 127.0.0.1 [--sse-interval-ms 50]
 * [--os-id demo-os] [--agentos 2.9|3.0] [--agno-version 3.0.0a3]`
 */
import { parseArgs } from 'node:util'
import { listenFailure } from '../../src/http/servers.js'
import { startAgentRuntime } from './index.js'
import { isAgentOsLine } from './lines.js'

/** A start-up failure: one line naming the option to change, exit 2 (usage) or 3 (listen). */
function fail(message: string, code: 2 | 3): never {
  process.stderr.write(`demo runtime: ${message}\n`)
  process.exit(code)
}

const OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '7777' },
  'sse-interval-ms': { type: 'string' },
  'os-id': { type: 'string' },
  agentos: { type: 'string', default: '2.9' },
  'agno-version': { type: 'string' },
} as const

function readOptions() {
  try {
    return parseArgs({ options: OPTIONS }).values
  } catch (error) {
    // Node's text goes on about positional arguments after its first sentence.
    const first = (error as Error).message.split('. ')[0] ?? ''
    const known = Object.keys(OPTIONS).map((name) => `--${name}`)
    return fail(`${first} (options: ${known.join(', ')})`, 2)
  }
}

const values = readOptions()
if (!isAgentOsLine(values.agentos)) fail(`--agentos must be 2.9 or 3.0, got ${values.agentos}`, 2)
const agentos = values.agentos

function integerOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const value = Number(text)
  if (!Number.isInteger(value) || value < 0) {
    fail(`--${name} must be a non-negative integer, got ${text}`, 2)
  }
  return value
}

const port = integerOption('port', values.port)
const sseIntervalMs = integerOption('sse-interval-ms', values['sse-interval-ms'])
const runtime = await startAgentRuntime({
  host: values.host,
  ...(port === undefined ? {} : { port }),
  ...(sseIntervalMs === undefined ? {} : { sseIntervalMs }),
  ...(values['os-id'] === undefined ? {} : { osId: values['os-id'] }),
  ...(values['agno-version'] === undefined ? {} : { agnoVersion: values['agno-version'] }),
  agentos,
}).catch((error: unknown) => {
  const settings = { port: '--port', host: '--host' }
  return fail(listenFailure(error, port ?? 0, values.host, settings).message, 3)
})
console.log(`AgentOS ${agentos} demo runtime listening on ${runtime.url}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void runtime.close().then(() => process.exit(0))
  })
}
