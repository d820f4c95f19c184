import { fileURLToPath } from 'node:url'
import type { LoadResult } from '../lib/types.js'
import { runJsonChild, type LoadGenerator, type LoadSpec, type RunningLoad } from './generator.js'

const CHILD = fileURLToPath(new URL('./autocannon-child.ts', import.meta.url))

/** autocannon (from node_modules) in its own process, pinned to the generator core. */
export function autocannonGenerator(cpus: string | null): LoadGenerator {
  return {
    name: 'autocannon',
    run(spec: LoadSpec): RunningLoad {
      return runJsonChild<LoadResult>(CHILD, spec, cpus, 'autocannon')
    },
  }
}
