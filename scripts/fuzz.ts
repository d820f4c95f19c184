/**
 * The long run of the security suite's property-based fuzzers (test/security/properties):
 *
 *   npx tsx scripts/fuzz.ts --runs 1000000 [--seed 42] [--only path,credentials,scopes]
 *
 * Prints each property's outcome and, for a failure, the shrunk counterexample with the seed and
 * path that replay it; exits 1 when any property fails. Without --seed a random one is used.
 */
import fc from 'fast-check'
import { PROPERTIES } from '../test/security/properties/index.js'

interface Options {
  readonly runs: number
  readonly seed: number
  readonly only: readonly string[] | undefined
}

function parseOptions(argv: readonly string[]): Options {
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag)
    return index === -1 ? undefined : argv[index + 1]
  }
  const runs = Number(value('--runs') ?? 100_000)
  const seed = Number(value('--seed') ?? Math.floor(Math.random() * 2 ** 31))
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer')
  if (!Number.isSafeInteger(seed)) throw new Error('--seed must be an integer')
  const only = value('--only')?.split(',')
  for (const group of only ?? []) {
    if (!(group in PROPERTIES))
      throw new Error(`--only: no group ${group} (${Object.keys(PROPERTIES).join(', ')})`)
  }
  return { runs, seed, only }
}

function main(): number {
  const options = parseOptions(process.argv.slice(2))
  console.log(`fuzzing with seed ${options.seed}, ${options.runs} runs per property`)
  let failures = 0
  for (const [group, properties] of Object.entries(PROPERTIES)) {
    if (options.only !== undefined && !options.only.includes(group)) continue
    for (const [name, property] of Object.entries(properties)) {
      const started = performance.now()
      const details = fc.check(property, { seed: options.seed, numRuns: options.runs })
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      if (!details.failed) {
        console.log(`ok    ${group}: ${name} (${details.numRuns} runs, ${seconds} s)`)
        continue
      }
      failures++
      console.log(`FAIL  ${group}: ${name}`)
      console.log(fc.defaultReportMessage(details))
      console.log(
        `replay: npx tsx scripts/fuzz.ts --only ${group} --seed ${details.seed} --runs ${options.runs}`,
      )
    }
  }
  return failures === 0 ? 0 : 1
}

process.exitCode = main()
