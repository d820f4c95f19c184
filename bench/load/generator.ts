import type { ChildProcess } from 'node:child_process'
import { start } from '../lib/cleanup.js'
import type { LoadResult } from '../lib/types.js'

/** A closed-loop load run: `connections` keep-alive connections for `durationS` seconds. */
export interface LoadSpec {
  readonly url: string
  readonly connections: number
  readonly durationS: number
  readonly headers: Readonly<Record<string, string>>
  /** One token a line; each request sends the next as `Authorization: Bearer …`. */
  readonly tokensFile?: string
  /** Where in the tokens file to begin (continuing the previous run keeps every token fresh). */
  readonly tokenOffset?: number
  /**
   * The status every answer should have, when it is not 2xx (answers the gateway gives itself):
   * answers are then counted per status, and those with another status are the unexpected ones.
   */
  readonly expectStatus?: number
}

/** A running load generator: its process (for CPU accounting) and its result. */
export interface RunningLoad {
  readonly child: ChildProcess
  readonly result: Promise<LoadResult>
}

export interface LoadGenerator {
  readonly name: string
  run(spec: LoadSpec): RunningLoad
}

/** Collects a child's stdout and stderr; resolves when it exits (rejects on a non-zero code). */
export function collect(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(stdout)
      else
        reject(
          new Error(`${what} failed (${code ?? signal}):\n${(stderr || stdout).slice(-2_000)}`),
        )
    })
  })
}

/**
 * A TypeScript script of the harness in a Node process of its own (pinned to `cpus`), given one
 * JSON argument; its result is the last line it prints, parsed as JSON.
 */
export function runJsonChild<T>(
  script: string,
  spec: unknown,
  cpus: string | null,
  what: string,
): { readonly child: ChildProcess; readonly result: Promise<T> } {
  const child = start(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec)], {
    cpus,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const result = collect(child, what).then((stdout) => {
    const line = stdout.trim().split('\n').pop() ?? ''
    return JSON.parse(line) as T
  })
  return { child, result }
}
