import type { AddressInfo } from 'node:net'
import t from 'tap'
import { WebSocketServer } from 'ws'
import { connectInspector } from '../../../bench/lib/inspector.js'

// A real profile's size: a fast process sampled for 8 s lists some 3 million samples.
const PROFILE_BYTES = 120 * 1024 * 1024

void t.test(
  "an allocation profile over 100 MiB arrives whole (past ws's default limit, the socket was closed)",
  async (t) => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
    t.teardown(() => server.close())
    await new Promise<void>((resolve) => server.once('listening', resolve))
    const padding = 'x'.repeat(PROFILE_BYTES)
    server.on('connection', (socket) => {
      socket.on('message', (data: Buffer) => {
        const { id, method } = JSON.parse(data.toString('utf8')) as { id: number; method: string }
        const result =
          method === 'HeapProfiler.stopSampling'
            ? { profile: { head: { id: 1, selfSize: 7, children: [] }, samples: [], padding } }
            : {}
        socket.send(JSON.stringify({ id, result }))
      })
    })
    const { port } = server.address() as AddressInfo
    const session = await connectInspector(`ws://127.0.0.1:${port}`)
    t.teardown(() => session.close())
    const marks: number[] = []
    const profile = await session.sampleAllocations(1, 256, () => marks.push(marks.length))
    t.equal(profile.head.selfSize, 7, 'the profile, whole')
    t.equal(marks.length, 2, 'marked as sampling started and before it stopped')
  },
)
