// Runs in a test process of its own: it measures the process's buffer memory (scripts/test-groups.ts).
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { setImmediate as yieldToProducer } from 'node:timers/promises'
import v8 from 'node:v8'
import vm from 'node:vm'
import busboy from 'busboy'
import t from 'tap'
import { enforcer, field, planInput, serviceAccount } from './helpers.js'

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void

const BOUNDARY = 'stream-boundary'
const FILE_BYTES = 20 * 1024 * 1024
const CHUNK = 64 * 1024
const MB = 1024 * 1024

void t.test('a 20 MB file streams through the rewriter without being held', async (t) => {
  const sent = createHash('sha256')
  let produced = 0
  async function* client(): AsyncGenerator<Buffer> {
    const head = (name: string, value: string) =>
      `--${BOUNDARY}\r\n${field(name)}\r\n\r\n${value}\r\n`
    yield Buffer.from(head('user_id', 'spoof-1') + head('message', 'hi'))
    yield Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n` +
        'Content-Type: application/x-big\r\n\r\n',
    )
    for (let offset = 0; offset < FILE_BYTES; offset += CHUNK) {
      const chunk = Buffer.alloc(CHUNK, 0x80 + ((offset / CHUNK) % 100))
      // A line that starts like the delimiter must stay file data.
      chunk.write(`\r\n--${BOUNDARY.slice(0, -1)}`, 100)
      sent.update(chunk)
      produced += chunk.length
      yield chunk
    }
    yield Buffer.from(`\r\n${head('user_id', 'spoof-after-file')}--${BOUNDARY}--\r\n`)
  }

  const input = Readable.from(client(), { objectMode: false, highWaterMark: CHUNK })
  const plan = await enforcer().plan(
    planInput({
      principal: serviceAccount('bot'),
      method: 'POST',
      path: '/agents/a1/runs',
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'transfer-encoding': 'chunked',
      },
      body: input,
    }),
  )
  const output = plan.body?.content as Readable
  t.ok(output instanceof Readable, 'the body is a stream, not a buffer')

  const received = createHash('sha256')
  const fields: string[] = []
  let fileBytes = 0
  let filename: string | undefined
  let mimeType: string | undefined
  const reader = busboy({ headers: { 'content-type': plan.body?.contentType ?? '' } })
  reader.on('field', (name, value) => fields.push(`${name}=${value}`))
  reader.on('file', (_name, file: Readable, info) => {
    filename = info.filename
    mimeType = info.mimeType
    file.on('data', (chunk: Buffer) => {
      received.update(chunk)
      fileBytes += chunk.length
    })
  })
  const parsed = new Promise((resolve, reject) => reader.on('close', resolve).on('error', reject))

  gc()
  const baseline = process.memoryUsage().arrayBuffers
  let consumed = 0
  let maxLag = 0
  let maxGrowth = 0
  let nextSample = 0
  for await (const chunk of output as AsyncIterable<Buffer>) {
    consumed += chunk.length
    maxLag = Math.max(maxLag, produced - consumed)
    if (!reader.write(chunk)) await new Promise((resolve) => reader.once('drain', resolve))
    // A slow consumer: the producer gets every chance to run ahead if nothing held it back.
    await yieldToProducer()
    if (consumed >= nextSample) {
      nextSample += 2 * MB
      gc()
      maxGrowth = Math.max(maxGrowth, process.memoryUsage().arrayBuffers - baseline)
    }
  }
  reader.end()
  await parsed

  t.equal(fileBytes, FILE_BYTES)
  t.equal(received.digest('hex'), sent.digest('hex'), 'the file bytes are identical')
  t.equal(filename, 'big.bin')
  t.equal(mimeType, 'application/x-big')
  t.same(
    fields,
    ['user_id=sa:bot', 'message=hi'],
    'both spoofed parts are gone, ours is there once',
  )
  t.ok(
    maxLag < 2 * MB,
    `the input never ran more than ${(maxLag / MB).toFixed(2)} MB ahead of the output`,
  )
  t.ok(maxGrowth < 6 * MB, `live buffers grew by at most ${(maxGrowth / MB).toFixed(2)} MB`)
})
