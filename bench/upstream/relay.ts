import type { ServerResponse } from 'node:http'
import type { Dispatcher } from 'undici'

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding'])

/**
 * The least a correct Node proxy does with an upstream answer: headers without the hop-by-hop
 * fields, the body as it arrives with the client's backpressure (undici paused until `drain`),
 * the end, and the upstream request aborted when the client goes first. Without the last two a
 * client that closes mid-answer left its upstream connection paused for good: each load
 * generator's exit stalled some of the pool, until the floor answered nothing. Shared by the
 * bare and the Koa floors of the bench.
 */
export class Relay implements Dispatcher.DispatchHandler {
  private abort: ((error?: Error) => void) | undefined
  private resume: (() => void) | undefined
  private clientGone = false

  constructor(
    private readonly res: ServerResponse,
    private readonly done: () => void = () => {},
  ) {
    res.once('close', this.onClientClose)
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abort = abort
    if (this.clientGone) abort()
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    this.resume = resume
    const headers: Record<string, string> = {}
    for (let i = 0; i < raw.length; i += 2) {
      const name = (raw[i] as Buffer).toString('latin1').toLowerCase()
      if (!HOP_BY_HOP.has(name)) headers[name] = (raw[i + 1] as Buffer).toString('latin1')
    }
    this.res.writeHead(status, headers)
    return true
  }

  onData(chunk: Buffer): boolean {
    if (this.res.write(chunk)) return true
    this.res.once('drain', this.onDrain)
    return false
  }

  onComplete(): void {
    this.res.end()
    this.settle()
  }

  onError(): void {
    this.res.destroy()
    this.settle()
  }

  private settle(): void {
    this.res.off('close', this.onClientClose)
    this.res.off('drain', this.onDrain)
    this.done()
  }

  private readonly onClientClose = (): void => {
    if (this.res.writableFinished) return
    this.clientGone = true
    this.abort?.()
  }

  private readonly onDrain = (): void => {
    this.resume?.()
  }
}
