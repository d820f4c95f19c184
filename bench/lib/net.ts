import { request } from 'node:http'
import { createServer } from 'node:net'

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export interface SimpleResponse {
  readonly status: number
  readonly body: string
}

/** One HTTP request on a fresh connection (setup and checks, never measurements). */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<SimpleResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        )
        res.on('error', reject)
      },
    )
    req.setTimeout(10_000, () => req.destroy(new Error(`timeout: ${url}`)))
    req.on('error', reject)
    req.end(options.body)
  })
}

/** Polls `url` until it answers 200, or throws after `timeoutMs`. */
export async function waitForHttp(
  url: string,
  what: string,
  isAlive: () => boolean,
  timeoutMs = 60_000,
  headers: Record<string, string> = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`${what} exited before it was ready (${last})`)
    try {
      const res = await httpRequest(url, { headers })
      if (res.status === 200) return
      last = `status ${res.status}`
    } catch (error) {
      last = String(error)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${what} was not ready after ${timeoutMs} ms (${last})`)
}
