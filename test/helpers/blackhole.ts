import { connect, type Socket } from 'node:net'
import { Child } from './child-process.js'
import type { Teardown } from './gateway.js'
import { waitFor } from './wait.js'

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
  // Fill the accept queue (backlog + 1 connections complete in the kernel); the attempts beyond
  // it stay pending, and so will the gateway's.
  const sockets: Socket[] = []
  t.teardown(() => sockets.forEach((socket) => socket.destroy()))
  let connected = 0
  for (let attempt = 0; attempt < 6; attempt++) {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => connected++)
    socket.on('error', () => undefined)
    sockets.push(socket)
  }
  await waitFor(() => connected >= 2, 'the accept queue of the blackhole to fill')
  await new Promise((resolve) => setTimeout(resolve, 500))
  if (connected === sockets.length) throw new Error('the blackhole accepted every connection')
  return { port, url: `http://127.0.0.1:${port}` }
}
