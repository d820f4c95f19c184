/** CLI: `tsx demo/runtime/main.ts --port 7777 --host 127.0.0.1 [--sse-interval-ms 50] [--os-id demo-os]` */
import { parseArgs } from 'node:util'
import { startAgentRuntime } from './index.js'

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '7777' },
    'sse-interval-ms': { type: 'string' },
    'os-id': { type: 'string' },
  },
})

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
})
console.log(`AgentOS demo runtime listening on ${runtime.url}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void runtime.close().then(() => process.exit(0))
  })
}
