import { fork } from 'node:child_process'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'

// The child entry is this module's sibling, in TypeScript under tsx and in JavaScript once built.
const CHILD = fileURLToPath(
  new URL(`./pglite-init-child${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
)

/**
 * Initialises an embedded-store data directory in a child process (which inherits this process's
 * loader flags), from `template` or else with initdb, and resolves with the child's peak resident
 * memory in bytes; rejects with the child's last error line when it fails. Either way the memory
 * it took (initdb's hundreds of megabytes, or the tens that unpacking leaves fragmented) is given
 * back when the child exits.
 */
export function initialiseInChildProcess(
  dataDir: string,
  template: string | undefined,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [dataDir, template ?? ''], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    let stderr = ''
    let peakRssBytes: number | undefined
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_096)
    })
    child.on('message', (message: { peakRssBytes?: number; error?: string }) => {
      if (typeof message.peakRssBytes === 'number') peakRssBytes = message.peakRssBytes
      if (typeof message.error === 'string') stderr = message.error
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (code === 0 && peakRssBytes !== undefined) {
        resolve(peakRssBytes)
        return
      }
      const lastLine = stderr.trim().split('\n').pop() ?? ''
      const how = signal === null ? `exit code ${code}` : `signal ${signal}`
      reject(new Error(`initialising the embedded store failed (${how}) ${lastLine}`.trim()))
    })
  })
}
