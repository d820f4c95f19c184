import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { bufferedOutput, createLogger } from '../../src/logger.js'

void t.test(
  'standard output’s stream takes the logger’s lines and encoded blocks, in order',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-output-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'out.log')
    const fd = openSync(file, 'w')
    t.teardown(() => closeSync(fd))
    const output = bufferedOutput(fd)
    const logger = createLogger({ level: 'info', destination: output })
    logger.info({ path: '/é' }, 'first')
    output.writeBlock(Buffer.from('{"msg":"block","n":1}\n{"msg":"block","n":2}\n', 'utf8'))
    logger.info('last')
    output.flushSync()
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { msg: string; path?: string; n?: number })
    t.same(
      lines.map((line) => line.n ?? line.msg),
      ['first', 1, 2, 'last'],
    )
    t.equal(lines[0]?.path, '/é', 'a string line is written as UTF-8')

    // The periodic flush's path: asynchronous, all of it written once it calls back.
    logger.info('later')
    await new Promise<void>((resolve, reject) =>
      (output as unknown as { flush(cb: (error?: Error) => void): void }).flush((error) =>
        error === undefined || error === null ? resolve() : reject(error),
      ),
    )
    t.match(readFileSync(file, 'utf8'), /"msg":"later"/)
  },
)
