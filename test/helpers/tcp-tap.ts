import { createServer, connect, type AddressInfo, type Socket } from 'node:net'
import type { Teardown } from './gateway.js'

/**
 * A TCP relay placed between the gateway and its upstream. It counts connections and the bytes
 * the upstream sent, records what it forwarded to the gateway, and can hold the upstream's bytes
 * back after a given pattern, so that a test can tell what the gateway had received at the moment
 * the client saw something.
 */
export interface TcpTap {
  readonly url: string
  readonly port: number
  /** TCP connections opened through the tap so far. */
  readonly connections: number
  /** Bytes the upstream has sent so far, all connections. */
  readonly upstreamBytes: number
  /** What was forwarded to the gateway so far (its first MiB), all connections, as latin1 text. */
  forwardedText(): string
  /**
   * From now on, once the forwarded bytes contain `pattern`, forward up to the end of that event
   * (the next blank line) and hold everything after it until `release()`.
   */
  holdAfter(pattern: RegExp): void
  /** True while bytes are being held back. */
  readonly holding: boolean
  release(): void
}

const RECORDED_LIMIT = 1024 * 1024

export async function startTcpTap(t: Teardown, targetPort: number): Promise<TcpTap> {
  const sockets = new Set<Socket>()
  const forwarded: Buffer[] = []
  let connections = 0
  let upstreamBytes = 0
  let recorded = 0
  let holdPattern: RegExp | undefined
  let holdFrom = 0
  let holding = false
  /** Held chunks in order; `null` stands for the upstream's end of stream. */
  const held: { client: Socket; chunk: Buffer | null }[] = []

  /** Writes to the gateway side; false when that socket wants the upstream side paused. */
  const forward = (client: Socket, chunk: Buffer): boolean => {
    if (recorded < RECORDED_LIMIT) {
      forwarded.push(chunk)
      recorded += chunk.length
    }
    return client.write(chunk)
  }

  const server = createServer((client) => {
    connections++
    const upstream = connect(targetPort, '127.0.0.1')
    upstream.setNoDelay(true)
    client.setNoDelay(true)
    sockets.add(client).add(upstream)
    // Backpressure as pipe() would: the tap must not read the upstream faster than the gateway.
    client.on('drain', () => upstream.resume())
    upstream.on('data', (chunk: Buffer) => {
      upstreamBytes += chunk.length
      if (holding) {
        held.push({ client, chunk })
        return
      }
      if (holdPattern !== undefined) {
        // Only what arrived since holdAfter() counts.
        const before = Buffer.concat(forwarded).subarray(holdFrom).toString('latin1')
        const text = before + chunk.toString('latin1')
        const match = holdPattern.exec(text)
        if (match !== null) {
          holdPattern = undefined
          holding = true
          const eventEnd = text.indexOf('\n\n', match.index + match[0].length)
          const cut = eventEnd === -1 ? chunk.length : eventEnd + 2 - before.length
          forward(client, chunk.subarray(0, cut))
          if (cut < chunk.length) held.push({ client, chunk: chunk.subarray(cut) })
          return
        }
      }
      if (!forward(client, chunk)) upstream.pause()
    })
    client.pipe(upstream)
    const close = (): void => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', close).on('close', close)
    upstream.on('error', close).on('end', () => {
      // Held bytes go first, when the tap is released.
      if (holding) held.push({ client, chunk: null })
      else client.end()
    })
    client.on('close', () => sockets.delete(client))
    upstream.on('close', () => sockets.delete(upstream))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  )
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return connections
    },
    get upstreamBytes() {
      return upstreamBytes
    },
    get holding() {
      return holding
    },
    forwardedText: () => Buffer.concat(forwarded).toString('latin1'),
    holdAfter(pattern: RegExp) {
      holdPattern = pattern
      holdFrom = recorded
    },
    release() {
      holding = false
      for (const { client, chunk } of held.splice(0)) {
        if (chunk === null) client.end()
        else forward(client, chunk)
      }
    },
  }
}
