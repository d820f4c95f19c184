import { createServer, connect, type AddressInfo, type Socket } from 'node:net'
import type { Teardown } from './gateway.js'

/**
 * A TCP relay placed between the gateway and its upstream: it counts connections and records the
 * bytes the upstream has sent so far, so a test can tell what the upstream had written at the
 * moment the client saw something.
 */
export interface TcpTap {
  readonly url: string
  readonly port: number
  /** TCP connections opened through the tap so far. */
  readonly connections: number
  /** Bytes the upstream has sent so far, all connections. */
  readonly upstreamBytes: number
  /** What the upstream has sent so far (its first MiB), all connections, as latin1 text. */
  upstreamText(): string
}

const RECORDED_LIMIT = 1024 * 1024

export async function startTcpTap(t: Teardown, targetPort: number): Promise<TcpTap> {
  const sockets = new Set<Socket>()
  const fromUpstream: Buffer[] = []
  let connections = 0
  let upstreamBytes = 0
  let recorded = 0
  const server = createServer((client) => {
    connections++
    const upstream = connect(targetPort, '127.0.0.1')
    upstream.setNoDelay(true)
    client.setNoDelay(true)
    sockets.add(client).add(upstream)
    upstream.on('data', (chunk: Buffer) => {
      upstreamBytes += chunk.length
      if (recorded < RECORDED_LIMIT) {
        fromUpstream.push(chunk)
        recorded += chunk.length
      }
    })
    client.pipe(upstream)
    upstream.pipe(client)
    const close = (): void => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', close).on('close', close)
    upstream.on('error', close).on('close', close)
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
    upstreamText: () => Buffer.concat(fromUpstream).toString('latin1'),
  }
}
