/**
 * Property-based fuzzing (fast-check) of the path canonicalizer: idempotent, the forwarded path decodes to the authorized one, an accepted target means the same to every reader (reference decoders in properties/path.ts). A fixed seed and a bounded number of runs keep the
 * suite fast and reproducible; `npx tsx scripts/fuzz.ts --only path --runs 1000000` is the long run.
 */
import fc from 'fast-check'
import t from 'tap'
import { PROPERTIES, SUITE_SEED } from './properties/index.js'

for (const [name, property] of Object.entries(PROPERTIES.path ?? {})) {
  void t.test(name, async (t) => {
    const details = fc.check(property, { seed: SUITE_SEED, numRuns: 10_000 })
    t.notOk(
      details.failed,
      details.failed ? (fc.defaultReportMessage(details) ?? 'failed') : 'held',
    )
    t.equal(details.numRuns, 10_000, '10 000 runs')
  })
}
