import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { Child, childEnv, cliArgs } from './child-process.js'
import type { Teardown } from './gateway.js'

/** A configuration `config check` and `serve` must both refuse, and the one line they print. */
export interface RefusedConfig {
  readonly what: string
  readonly config: string
  readonly env: Record<string, string>
  readonly line: string
}

export function tempDir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-check-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Runs `portcullis config check` and `portcullis serve` (ports 0, a private data directory) on
 * each case, two cases at a time; both must exit 2 with exactly the case's line and start nothing.
 */
export async function checkAndServeRefuse(
  t: Test,
  dataDir: string,
  cases: readonly RefusedConfig[],
): Promise<void> {
  for (let index = 0; index < cases.length; index += 2) {
    await Promise.all(cases.slice(index, index + 2).map((each) => bothRefuse(t, dataDir, each)))
  }
}

async function bothRefuse(t: Test, dataDir: string, { what, config, env, line }: RefusedConfig) {
  const run = (args: string[]) =>
    new Child(
      t,
      cliArgs(...args, '--config', config),
      childEnv({
        PORTCULLIS_DATA_DIR: dataDir,
        PORTCULLIS_PORT: '0',
        PORTCULLIS_ADMIN_PORT: '0',
        ...env,
      }),
    )
  const check = run(['config', 'check'])
  const serve = run(['serve'])
  const [checkExit, serveExit] = await Promise.all([check.exit(90_000), serve.exit(90_000)])
  t.equal(checkExit.code, 2, `${what}: config check exits 2`)
  t.equal(serveExit.code, 2, `${what}: serve exits 2`)
  t.same(check.stderr, [line], `${what}: config check says why in one line`)
  t.same(serve.stderr, check.stderr, `${what}: serve says the same`)
  t.same(check.stdout, [], `${what}: nothing is called valid`)
  t.same(serve.stdout, [], `${what}: nothing was started`)
}
