import {
  createServer,
  request,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http'
import type { Teardown } from './gateway.js'
import { listenForTest } from './ports.js'

/**
 * An HTTP relay that adds `Authorization` to every request it forwards and changes nothing else
 * (method, path, headers including Host and Origin, bodies and streamed responses as they come),
 * for a client that offers no way to send a credential: it stands for that client configured with
 * one, as an MCP client's own header option would be. `authorization` undefined adds nothing.
 */
export interface CredentialRelay {
  readonly url: string
}

export async function startCredentialRelay(
  t: Teardown,
  target: string,
  authorization: string | undefined,
): Promise<CredentialRelay> {
  const { hostname, port: targetPort } = new URL(target)
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const headers: OutgoingHttpHeaders = { ...incoming.headers }
    if (authorization !== undefined) headers.authorization = authorization
    const upstream = request(
      { hostname, port: targetPort, method: incoming.method, path: incoming.url, headers },
      (reply) => {
        outgoing.writeHead(reply.statusCode ?? 502, reply.headers)
        // Event streams are written through as they arrive.
        outgoing.flushHeaders()
        reply.pipe(outgoing)
      },
    )
    upstream.on('error', () => outgoing.destroy())
    outgoing.on('close', () => upstream.destroy())
    incoming.pipe(upstream)
  }
  const port = await listenForTest(t, createServer(forward))
  return { url: `http://127.0.0.1:${port}` }
}
