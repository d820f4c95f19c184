import WebSocket from 'ws'
import type { SamplingHeapProfile } from './heap-profile.js'
import { httpRequest } from './net.js'

/** The V8 heap of a process as `process.memoryUsage()` reports it, in bytes. */
export interface HeapUsage {
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Opens the inspector of a running node process started with `--inspect-port=<port>`: SIGUSR1
 * makes node listen there (nothing listens before, so nothing is paid until asked).
 */
export async function openInspector(pid: number, port: number): Promise<InspectorSession> {
  process.kill(pid, 'SIGUSR1')
  let targets: { webSocketDebuggerUrl?: string }[] = []
  for (let attempt = 0; attempt < 100 && targets.length === 0; attempt++) {
    try {
      targets = JSON.parse((await httpRequest(`http://127.0.0.1:${port}/json/list`)).body) as []
    } catch {
      await sleep(100)
    }
  }
  const url = targets[0]?.webSocketDebuggerUrl
  if (url === undefined) throw new Error(`no inspector on port ${port} of process ${pid}`)
  return connectInspector(url)
}

/** A session on an inspector's WebSocket (`webSocketDebuggerUrl`). */
export async function connectInspector(url: string): Promise<InspectorSession> {
  // A sampled allocation profile lists every sample: some 3 million (over 200 MB of JSON) for
  // 8 s of a fast process, past ws's default limit of 100 MiB, over which ws closes the socket.
  const socket = new WebSocket(url, { maxPayload: MAX_MESSAGE_BYTES })
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  return new InspectorSession(socket)
}

/** The largest protocol message read (a string of it must stay under V8's limit of 512 MiB). */
const MAX_MESSAGE_BYTES = 500 * 1024 * 1024

/** A Chrome DevTools Protocol session: only what the memory and allocation phases ask. */
export class InspectorSession {
  readonly #socket: WebSocket
  readonly #pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>()
  #next = 1

  constructor(socket: WebSocket) {
    this.#socket = socket
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { id?: number; result?: unknown }
      if (message.id !== undefined) this.#pending.get(message.id)?.(message)
    })
    // A process that exits (or a socket that breaks) leaves no request waiting for ever.
    socket.once('close', (code: number) => {
      for (const answer of this.#pending.values()) {
        answer({ error: `inspector socket closed (${code})` })
      }
    })
  }

  async #send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#next++
    const answered = new Promise<{ result?: unknown; error?: unknown }>((resolve) =>
      this.#pending.set(id, resolve),
    )
    this.#socket.send(JSON.stringify({ id, method, params }))
    const message = await answered
    this.#pending.delete(id)
    if (message.error !== undefined) throw new Error(`${method}: ${JSON.stringify(message.error)}`)
    return message.result
  }

  /** Full garbage collections until the heap stops shrinking, then the heap in use. */
  async heapAfterGc(): Promise<HeapUsage> {
    let last = Number.POSITIVE_INFINITY
    for (let round = 0; round < 5; round++) {
      await this.#send('HeapProfiler.collectGarbage')
      const usage = await this.heapUsage()
      if (usage.heapUsed >= last * 0.999) return usage
      last = usage.heapUsed
    }
    return this.heapUsage()
  }

  /**
   * V8's sampling heap profiler for `ms`, every sampled allocation counted (objects collected
   * since included): one sample per `samplingInterval` bytes on average. `mark` is called once
   * sampling has started and again just before it is asked to stop, so that what it counts (the
   * requests answered) falls within the sampled window.
   */
  async sampleAllocations(
    ms: number,
    samplingInterval: number,
    mark: () => void,
  ): Promise<SamplingHeapProfile> {
    await this.#send('HeapProfiler.enable')
    await this.#send('HeapProfiler.startSampling', {
      samplingInterval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    })
    mark()
    await sleep(ms)
    mark()
    const { profile } = (await this.#send('HeapProfiler.stopSampling')) as {
      profile: SamplingHeapProfile
    }
    await this.#send('HeapProfiler.disable')
    return profile
  }

  async heapUsage(): Promise<HeapUsage> {
    const result = (await this.#send('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } }
    return JSON.parse(result.result.value) as HeapUsage
  }

  close(): void {
    this.#socket.close()
  }
}
