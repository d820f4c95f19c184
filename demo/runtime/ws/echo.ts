/** `/ws/echo`: frames come back with their type; `close:<code>:<reason>` closes the connection. */
import type { WebSocket } from 'ws'
import { toBuffer } from './frames.js'

const CLOSE_COMMAND = /^close:(\d+):(.*)$/s

/** The first offered subprotocol other than `bearer` (which carries a credential, not a protocol). */
export function selectEchoProtocol(protocols: Set<string>): string | false {
  return [...protocols].find((protocol) => protocol.toLowerCase() !== 'bearer') ?? false
}

export function handleEchoSocket(socket: WebSocket): void {
  socket.on('message', (data, isBinary) => {
    if (isBinary) return socket.send(toBuffer(data), { binary: true })
    const text = toBuffer(data).toString('utf8')
    const command = CLOSE_COMMAND.exec(text)
    if (command === null) return socket.send(text)
    try {
      socket.close(Number(command[1]), command[2])
    } catch (error) {
      socket.send(`error: ${error instanceof Error ? error.message : 'cannot close'}`)
    }
  })
}
