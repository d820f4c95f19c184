/**
 * Property-based fuzzing (fast-check) of credential extraction: the same token as the reference parser of properties/credentials.ts, duplicates refused alike, nothing thrown but a GatewayError. A fixed seed and a bounded number of runs keep the
 * suite fast and reproducible; `npx tsx scripts/fuzz.ts --only credentials --runs 1000000` is the long run.
 */
import fc from 'fast-check'
import t from 'tap'
import { PROPERTIES, SUITE_SEED } from './properties/index.js'

for (const [name, property] of Object.entries(PROPERTIES.credentials ?? {})) {
  void t.test(name, async (t) => {
    const details = fc.check(property, { seed: SUITE_SEED, numRuns: 10_000 })
    t.notOk(
      details.failed,
      details.failed ? (fc.defaultReportMessage(details) ?? 'failed') : 'held',
    )
    t.equal(details.numRuns, 10_000, '10 000 runs')
  })
}
