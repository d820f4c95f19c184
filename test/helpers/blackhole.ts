import { connect, type Socket } from 'node:net'
import { Child } from './child-process.js'
import type { Teardown } from './gateway.js'

/**
 * A TCP port whose connection attempts hang: a child process listens with a backlog of 1 and then
 * blocks its event loop, so nothing is ever accepted; once the accept queue is full the kernel
 * drops further SYNs and a connect never completes (a connect timeout, without the network).
 */
export async function startBlackhole(t: Teardown): Promise<{ port: number; url: string }> {
  const child = new Child(t, [
    '-e',
    `const server = require('node:net').createServer()
server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  process.stdout.write(server.address().port + '\\n')
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
})`,
  ])
  const port = Number(await child.line((line) => /^\d+$/.test(line), 'the blackhole to listen'))
  // Fill the accept queue: connect until an attempt stays pending.
  const sockets: Socket[] = []
  t.teardown(() => sockets.forEach((socket) => socket.destroy()))
  for (let attempt = 0; attempt < 16; attempt++) {
    const socket = connect(port, '127.0.0.1')
    sockets.push(socket)
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300)
      socket.once('connect', () => {
        clearTimeout(timer)
        resolve(true)
      })
      socket.once('error', () => {
        clearTimeout(timer)
        resolve(true)
      })
    })
    if (!connected) return { port, url: `http://127.0.0.1:${port}` }
  }
  throw new Error('could not fill the accept queue of the blackhole listener')
}
