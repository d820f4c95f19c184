/**
 * Property-based fuzzing (fast-check) of scope parsing and matching: monotonic grants, wildcards and admin look-alikes that never grant, the exact admin scope, the scopes claim. A fixed seed and a bounded number of runs keep the
 * suite fast and reproducible; `npx tsx scripts/fuzz.ts --only scopes --runs 1000000` is the long run.
 */
import fc from 'fast-check'
import t from 'tap'
import { PROPERTIES, SUITE_SEED } from './properties/index.js'

for (const [name, property] of Object.entries(PROPERTIES.scopes ?? {})) {
  void t.test(name, async (t) => {
    const details = fc.check(property, { seed: SUITE_SEED, numRuns: 3_000 })
    t.notOk(
      details.failed,
      details.failed ? (fc.defaultReportMessage(details) ?? 'failed') : 'held',
    )
    t.equal(details.numRuns, 3_000, '3 000 runs')
  })
}
