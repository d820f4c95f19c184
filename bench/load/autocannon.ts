import { fileURLToPath } from 'node:url'
import { start } from '../lib/cleanup.js'
import type { LoadResult } from '../lib/types.js'
import { collect, type LoadGenerator, type LoadSpec, type RunningLoad } from './generator.js'

const CHILD = fileURLToPath(new URL('./autocannon-child.ts', import.meta.url))

/** autocannon (from node_modules) in its own process, pinned to the generator core. */
export function autocannonGenerator(cpus: string | null): LoadGenerator {
  return {
    name: 'autocannon',
    run(spec: LoadSpec): RunningLoad {
      const child = start(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(spec)], {
        cpus,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const result = collect(child, 'autocannon').then((stdout) => {
        const line = stdout.trim().split('\n').pop() ?? ''
        return JSON.parse(line) as LoadResult
      })
      return { child, result }
    },
  }
}
