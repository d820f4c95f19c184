/**
 * CLI: `tsx demo/runtime/main.ts --port 7777 --host 127.0.0.1 [--sse-interval-ms 50]
 * [--os-id demo-os] [--agentos 2.9|3.0] [--agno-version 3.0.0a3]`
 */
import { parseArgs } from 'node:util'
import { startAgentRuntime } from './index.js'
import { isAgentOsLine } from './lines.js'

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '7777' },
    'sse-interval-ms': { type: 'string' },
    'os-id': { type: 'string' },
    agentos: { type: 'string', default: '2.9' },
    'agno-version': { type: 'string' },
  },
})

if (!isAgentOsLine(values.agentos)) {
  console.error(`--agentos must be 2.9 or 3.0, got ${values.agentos}`)
  process.exit(2)
}
const agentos = values.agentos

function integerOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const value = Number(text)
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name} must be a non-negative integer, got ${text}`)
    process.exit(2)
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
})
console.log(`AgentOS ${agentos} demo runtime listening on ${runtime.url}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void runtime.close().then(() => process.exit(0))
  })
}
