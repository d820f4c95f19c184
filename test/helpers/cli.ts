import { Child, childEnv, cliArgs } from './child-process.js'
import type { Teardown } from './gateway.js'

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `portcullis <args>` (the built CLI, as installed) to completion. */
export async function portcullis(
  t: Teardown,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  const child = new Child(t, cliArgs(...args), childEnv(env))
  const { code } = await child.exit(60_000)
  return { code, stdout: child.stdout.join('\n'), stderr: child.stderr.join('\n') }
}
