import type { ServerResponse } from 'node:http'
import type { Dispatcher } from 'undici'

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding'])

/**
 * The least a Node proxy does with an upstream answer: headers without the hop-by-hop fields,
 * the body as it arrives, the end. Shared by the bare and the Koa floors of the bench.
 */
export class Relay implements Dispatcher.DispatchHandler {
  constructor(
    private readonly res: ServerResponse,
    private readonly done: () => void = () => {},
  ) {}
  onConnect(): void {}
  onHeaders(status: number, raw: Buffer[]): boolean {
    const headers: Record<string, string> = {}
    for (let i = 0; i < raw.length; i += 2) {
      const name = (raw[i] as Buffer).toString('latin1').toLowerCase()
      if (!HOP_BY_HOP.has(name)) headers[name] = (raw[i + 1] as Buffer).toString('latin1')
    }
    this.res.writeHead(status, headers)
    return true
  }
  onData(chunk: Buffer): boolean {
    return this.res.write(chunk)
  }
  onComplete(): void {
    this.res.end()
    this.done()
  }
  onError(): void {
    this.res.destroy()
    this.done()
  }
}
