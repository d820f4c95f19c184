import { createHash, randomBytes } from 'node:crypto'
import { createServer, request, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Child, tsxArgs } from '../../helpers/child-process.js'
import { PASS_THROUGH_AUTH, startFoundationGateway } from '../../helpers/foundation.js'
import { sseMessages, type SseMessage } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { startTcpTap, type TcpTap } from '../../helpers/tcp-tap.js'
import { within } from '../../helpers/wait.js'

const MiB = 1024 * 1024

/**
 * Reads an event stream; when the first event arrives, notes what the tap had let through, then
 * releases it. While the tap holds the upstream's later events back, a gateway that buffers the
 * response can never deliver the first one: the bounded wait fails instead.
 */
async function readWhileHeld(body: ReadableStream<Uint8Array> | null, tap: TcpTap) {
  const events: SseMessage[] = []
  let forwardedAtFirst = ''
  let heldAtFirst = false
  const reading = (async () => {
    for await (const message of sseMessages(body as AsyncIterable<Uint8Array>)) {
      if (events.length === 0) {
        forwardedAtFirst = tap.forwardedText()
        heldAtFirst = tap.holding
        tap.release()
      }
      events.push(message)
    }
  })()
  await within(
    reading,
    'the event stream (the first event must arrive while the rest is held)',
    30_000,
  )
  return { events, forwardedAtFirst, heldAtFirst }
}

void t.test('an agent run streamed as SSE reaches the client event by event', async (t) => {
  const runtime = await startRuntime(t, { sseIntervalMs: 300 })
  const tap = await startTcpTap(t, runtime.port)
  const gateway = await startFoundationGateway(t, { upstream: { url: tap.url } })
  tap.holdAfter(/event: RunStarted\n/)

  const response = await fetch(`${gateway.url}/agents/a1/runs`, {
    method: 'POST',
    body: new URLSearchParams({ message: 'stream me', stream: 'true', user_id: 'carol' }),
  })
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/event-stream/)
  t.equal(response.headers.get('content-length'), null, 'not buffered into a sized body')

  const { events, forwardedAtFirst, heldAtFirst } = await readWhileHeld(response.body, tap)
  t.ok(heldAtFirst, 'the first event reached the client while the later ones were held back')
  t.notMatch(
    forwardedAtFirst,
    /RunContent|RunCompleted/,
    'the gateway had only the first event then',
  )
  t.same(
    events.map((event) => event.event),
    ['RunStarted', 'RunContent', 'RunContent', 'RunContent', 'RunCompleted'],
  )
  t.match(JSON.parse(events[0]?.data ?? '{}'), { event: 'RunStarted', agent_id: 'a1' })
  t.match(JSON.parse(events[4]?.data ?? '{}'), {
    event: 'RunCompleted',
    content: 'echo: stream me',
  })
  const recorded = runtime.requests.at(-1)
  t.same(recorded?.form, { message: ['stream me'], stream: ['true'], user_id: ['carol'] })
})

void t.test('/stream ticks reach the client one by one', async (t) => {
  const runtime = await startRuntime(t)
  const tap = await startTcpTap(t, runtime.port)
  const gateway = await startFoundationGateway(t, { upstream: { url: tap.url } })
  tap.holdAfter(/"index":0/)

  const response = await fetch(`${gateway.url}/stream?events=5&interval_ms=300`)
  t.equal(response.status, 200)
  const { events, forwardedAtFirst, heldAtFirst } = await readWhileHeld(response.body, tap)
  t.ok(heldAtFirst, 'the first tick reached the client while the later ones were held back')
  t.notMatch(forwardedAtFirst, /"index":[1-4]/)
  t.same(
    events.map((event) => JSON.parse(event.data) as unknown),
    [0, 1, 2, 3, 4].map((index) => ({ index, total: 5 })),
  )
})

void t.test(
  "an event stream's headers reach the client before its first event (regression)",
  async (t) => {
    let held: ServerResponse | undefined
    const upstream = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.flushHeaders()
      held = res
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    t.teardown(() => {
      upstream.closeAllConnections()
      upstream.close()
    })
    const port = (upstream.address() as AddressInfo).port
    const gateway = await startFoundationGateway(t, {
      upstream: { url: `http://127.0.0.1:${port}` },
    })

    // The upstream sends no event until told to: a gateway that kept the headers back until the
    // first body bytes would leave this fetch waiting.
    const response = await within(fetch(`${gateway.url}/events`), 'the headers alone', 5_000)
    t.equal(response.status, 200)
    t.match(response.headers.get('content-type'), /^text\/event-stream/)
    held?.end('data: {"index":0}\n\n')
    const data: string[] = []
    for await (const message of sseMessages(response.body as AsyncIterable<Uint8Array>))
      data.push(message.data)
    t.same(data, ['{"index":0}'])
  },
)

/** Multipart body of one file of `size` pseudo-random bytes, produced chunk by chunk. */
function multipartUpload(size: number, boundary: string) {
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const fileHash = createHash('sha256')
  const bodyHash = createHash('sha256')
  const base = randomBytes(64 * 1024)
  async function* body(): AsyncGenerator<Buffer> {
    bodyHash.update(head)
    yield head
    for (let sent = 0, index = 0; sent < size; index++) {
      const chunk = Buffer.from(base.subarray(0, Math.min(base.length, size - sent)))
      chunk.writeUInt32BE(index, 0)
      sent += chunk.length
      fileHash.update(chunk)
      bodyHash.update(chunk)
      yield chunk
    }
    bodyHash.update(tail)
    yield tail
  }
  return {
    body,
    length: head.length + size + tail.length,
    fileSha256: () => fileHash.digest('hex'),
    bodySha256: () => bodyHash.digest('hex'),
  }
}

interface UploadResult {
  bytes: number
  sha256: string
  files: { field: string; filename: string; size: number; sha256: string }[]
}

/** While the client has sent `at` bytes, it stops writing until `pause()` resolves. */
interface Checkpoint {
  readonly at: number
  pause(): Promise<void>
}

function upload(url: string, size: number, checkpoint?: Checkpoint) {
  const boundary = `portcullis-${randomBytes(12).toString('hex')}`
  const multipart = multipartUpload(size, boundary)
  const { hostname, port } = new URL(url)
  const done = new Promise<{ status: number; body: UploadResult }>((resolve, reject) => {
    const req = request({
      host: hostname,
      port,
      method: 'POST',
      path: '/upload',
      agent: false,
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': multipart.length,
      },
    })
    req.on('error', reject)
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as UploadResult,
        }),
      )
      res.on('error', reject)
    })
    void (async () => {
      let sent = 0
      let paused = false
      for await (const chunk of multipart.body()) {
        if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve))
        sent += chunk.length
        if (checkpoint !== undefined && !paused && sent >= checkpoint.at) {
          paused = true
          await checkpoint.pause()
        }
      }
      req.end()
    })().catch(reject)
  })
  return { done, multipart }
}

/** Downloads `/big`; once `at` bytes have arrived, stops reading until `pause()` resolves. */
function download(url: string, bytes: number, checkpoint?: Checkpoint) {
  const { hostname, port } = new URL(url)
  return new Promise<{ status: number; received: number; contentLength: string | undefined }>(
    (resolve, reject) => {
      const req = request({ host: hostname, port, path: `/big?bytes=${bytes}`, agent: false })
      req.on('error', reject)
      req.on('response', (res) => {
        let received = 0
        let paused = false
        res.on('data', (chunk: Buffer) => {
          received += chunk.length
          if (checkpoint !== undefined && !paused && received >= checkpoint.at) {
            paused = true
            res.pause()
            checkpoint.pause().then(() => res.resume(), reject)
          }
        })
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            received,
            contentLength: res.headers['content-length'],
          }),
        )
        res.on('error', reject)
      })
      req.end()
    },
  )
}

const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`

void t.test(
  'a 50 MB upload and a 50 MB download stream through without the gateway holding them',
  async (t) => {
    const runtime = await startRuntime(t)
    // The gateway runs in a child process, so that the memory measured is the gateway's alone.
    const child = new Child(t, [
      '--expose-gc',
      ...tsxArgs(
        'test/helpers/gateway-process.ts',
        JSON.stringify({ ...PASS_THROUGH_AUTH, upstream: { url: runtime.url } }),
      ),
    ])
    t.teardown(() => child.process.stdin?.end())
    const ready = JSON.parse(
      await child.line((line) => line.startsWith('{'), 'the gateway to listen'),
    ) as { url: string }
    const size = 50 * 1000 * 1000

    // Warm up every code path with small transfers, so the measurement sees only the body.
    t.equal((await within(upload(ready.url, 2 * MiB).done, 'a warm-up upload', 30_000)).status, 200)
    t.equal((await within(download(ready.url, 2 * MiB), 'a warm-up download', 30_000)).status, 200)

    // Two measures. Live memory (after a full GC) while the client holds the transfer mid-way: a
    // gateway that buffers the body, or writes to a paused client without backpressure, holds tens
    // of MB there; a streaming one holds about nothing. And peak RSS over the whole transfer, which
    // must not grow by the body size; it is the coarse check, because garbage between collections
    // makes it plateau near 35 MB whatever the body size (measured with 10 to 200 MB bodies).
    const before = await child.command('mark')
    let liveAt40 = 0
    const big = upload(ready.url, size, {
      at: 40 * 1000 * 1000,
      pause: async () => {
        liveAt40 = (await child.command('live')).live as number
      },
    })
    const result = await within(big.done, 'the 50 MB upload', 60_000)
    const after = await child.command('peak')
    t.equal(result.status, 200)
    t.equal(result.body.bytes, big.multipart.length, 'every byte arrived')
    t.equal(result.body.sha256, big.multipart.bodySha256(), 'the body is intact (sha256)')
    t.match(result.body.files, [
      { field: 'file', filename: 'big.bin', size, sha256: big.multipart.fileSha256() },
    ])
    const uploadLive = liveAt40 - (before.live as number)
    const uploadPeak = (after.peak as number) - (before.rss as number)
    t.ok(uploadLive < 8 * MiB, `live memory at 40 MB grew by ${mib(uploadLive)} (< 8 MiB)`)
    t.ok(uploadPeak < size, `peak RSS grew by ${mib(uploadPeak)} (< the body size)`)

    const beforeDownload = await child.command('mark')
    let liveWhilePaused = 0
    const got = await within(
      download(ready.url, size, {
        at: 10 * 1000 * 1000,
        pause: async () => {
          // Give the gateway time to read ahead if it ignores the paused client.
          await new Promise((resolve) => setTimeout(resolve, 500))
          liveWhilePaused = (await child.command('live')).live as number
        },
      }),
      'the 50 MB download',
      60_000,
    )
    const afterDownload = await child.command('peak')
    t.equal(got.status, 200)
    t.equal(got.contentLength, String(size), 'the upstream length is passed on')
    t.equal(got.received, size, 'every byte arrived')
    const downloadLive = liveWhilePaused - (beforeDownload.live as number)
    const downloadPeak = (afterDownload.peak as number) - (beforeDownload.rss as number)
    t.ok(downloadLive < 8 * MiB, `live memory while paused grew by ${mib(downloadLive)} (< 8 MiB)`)
    t.ok(downloadPeak < size, `peak RSS grew by ${mib(downloadPeak)} (< the body size)`)
  },
)

void t.test('a slow reader holds the upstream back instead of filling the gateway', async (t) => {
  // The client pauses after 1 MB; a tap between gateway and runtime counts what the runtime
  // managed to send meanwhile: socket buffers' worth, not the 100 MB body.
  const runtime = await startRuntime(t)
  const tap = await startTcpTap(t, runtime.port)
  const gateway = await startFoundationGateway(t, { upstream: { url: tap.url } })
  const size = 100 * 1000 * 1000
  let upstreamWhilePaused = 0
  const got = await within(
    download(gateway.url, size, {
      at: MiB,
      pause: async () => {
        await new Promise((resolve) => setTimeout(resolve, 500))
        upstreamWhilePaused = tap.upstreamBytes
      },
    }),
    'the slow download',
    60_000,
  )
  t.equal(got.received, size)
  t.ok(
    upstreamWhilePaused < 40 * MiB,
    `the upstream had sent ${mib(upstreamWhilePaused)} of 95 MiB while the client was paused`,
  )
})
