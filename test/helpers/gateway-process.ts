/**
 * A gateway in its own process, for measurements that the test process would distort (memory).
 * Run: node --expose-gc --import tsx test/helpers/gateway-process.ts '<config sections as JSON>'
 *
 * Prints one JSON line `{"url": …, "adminUrl": …}` once listening. Then answers commands on stdin,
 * one per line, each with one JSON line on stdout:
 *   mark  → collects garbage, restarts RSS peak tracking: {"rss", "live"}
 *   peak  → the highest RSS sampled since `mark`:        {"rss", "peak"}
 *   live  → collects garbage:                           {"rss", "live"}
 * where `live` is the memory reachable after a full collection (V8 heap plus Buffers), in bytes.
 * Stops the gateway and exits when stdin ends.
 */
import { createInterface } from 'node:readline'
import { createGateway } from '../../src/gateway.js'
import { createLogger } from '../../src/logger.js'
import { testConfig, type ConfigInput } from './gateway.js'

const input = JSON.parse(process.argv[2] ?? '{}') as ConfigInput
const config = testConfig(input)
const gateway = await createGateway(config, {
  logger: createLogger({ level: 'warn', destination: process.stderr }),
  collectProcessMetrics: false,
})
const running = await gateway.start()

let peak = 0
const sample = (): number => {
  const rss = process.memoryUsage.rss()
  if (rss > peak) peak = rss
  return rss
}
const sampler = setInterval(sample, 5)

/**
 * Heap and off-heap (Buffer) memory still reachable after full garbage collections. V8 frees
 * Buffer memory on a background thread after a collection, so one reading can still count dead
 * Buffers: the lowest of a few readings, a little apart, is what is really held.
 */
async function liveBytes(): Promise<number> {
  const gc = globalThis.gc
  if (gc === undefined) throw new Error('run with --expose-gc')
  let lowest = Number.POSITIVE_INFINITY
  for (let reading = 0; reading < 3; reading++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 30))
    const usage = process.memoryUsage()
    lowest = Math.min(lowest, usage.heapUsed + usage.external)
  }
  return lowest
}

const reply = (message: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(message)}\n`)
}

reply({ url: running.url, adminUrl: running.adminUrl })
const lines = createInterface({ input: process.stdin })
lines.on('line', (line) => {
  const command = line.trim()
  if (command === 'mark') {
    void liveBytes().then((live) => {
      peak = 0
      reply({ rss: sample(), live })
    })
  } else if (command === 'live') {
    void liveBytes().then((live) => reply({ rss: sample(), live }))
  } else if (command === 'peak') {
    reply({ rss: sample(), peak })
  } else {
    reply({ error: `unknown command ${command}` })
  }
})
lines.on('close', () => {
  clearInterval(sampler)
  void gateway.stop().then(() => process.exit(0))
})
