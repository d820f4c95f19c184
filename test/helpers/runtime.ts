import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  startAgentRuntime,
  type AgentRuntime,
  type AgentRuntimeOptions,
} from '../../demo/runtime/index.js'
import { infoOf, SUITE_AGENTOS_FACE } from './agentos-upstream.js'
import type { Teardown } from './gateway.js'
import { listenForTest } from './ports.js'
import { SUITE_AGENTOS_LINE } from './suite-line.js'

/**
 * The demo AgentOS runtime on port 0, closed at teardown. It behaves as an open AgentOS of the
 * suite's line (2.9.0 or 3.0.0a3) unless `agentos` chooses.
 */
export async function startRuntime(
  t: Teardown,
  options: AgentRuntimeOptions = {},
): Promise<AgentRuntime> {
  const runtime = await startAgentRuntime({ agentos: SUITE_AGENTOS_LINE, ...options })
  t.teardown(() => runtime.close())
  return runtime
}

export interface CustomUpstream {
  readonly url: string
  readonly port: number
  readonly server: Server
}

/**
 * A plain node:http upstream on port 0 for behaviour the demo runtime does not have. The gateway's
 * own reads of the AgentOS version (X-Portcullis-Probe) are answered here as the AgentOS of the
 * suite's line answers them and never reach `listener`: they come at times of the gateway's
 * choosing.
 */
export async function startCustomUpstream(
  t: Teardown,
  listener: RequestListener,
): Promise<CustomUpstream> {
  const server = createServer((req, res) => {
    if (req.headers['x-portcullis-probe'] === undefined) {
      listener(req, res)
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(infoOf(SUITE_AGENTOS_FACE)))
  })
  const port = await listenForTest(t, server)
  return { url: `http://127.0.0.1:${port}`, port, server }
}

/** A port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
