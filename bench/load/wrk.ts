import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { start } from '../lib/cleanup.js'
import { collect, type LoadGenerator, type LoadSpec, type RunningLoad } from './generator.js'
import { parseWrkOutput, wrkScript } from './wrk-script.js'

/** wrk with one thread, pinned to the generator core. */
export function wrkGenerator(
  wrkPath: string,
  scriptDir: string,
  cpus: string | null,
): LoadGenerator {
  let scripts = 0
  return {
    name: 'wrk',
    run(spec: LoadSpec): RunningLoad {
      scripts += 1
      const script = join(scriptDir, `wrk-${scripts}.lua`)
      writeFileSync(
        script,
        wrkScript({
          headers: spec.headers,
          tokensFile: spec.tokensFile,
          tokenOffset: spec.tokenOffset,
          countStatuses: spec.expectStatus !== undefined,
        }),
      )
      const child = start(
        wrkPath,
        [
          '-t1',
          `-c${spec.connections}`,
          // wrk takes whole seconds only.
          `-d${Math.max(1, Math.round(spec.durationS))}s`,
          '--timeout',
          '10s',
          '-s',
          script,
          spec.url,
        ],
        { cpus, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      const result = collect(child, 'wrk').then((stdout) =>
        parseWrkOutput(stdout, spec.expectStatus),
      )
      return { child, result }
    },
  }
}
