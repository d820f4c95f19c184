import { readFileSync } from 'node:fs'
import t from 'tap'
import { withReasonsTable } from '../../../scripts/reasons-table.js'
import { REASONS } from '../../../src/reasons.js'
import { METRICS_DOC } from './metrics-catalogue.js'

void t.test('docs/metrics.md lists the reason table as src/reasons.ts has it', async (t) => {
  const doc = readFileSync(METRICS_DOC, 'utf8')
  t.equal(
    doc,
    withReasonsTable(doc),
    'up to date (run `npm run gen` after changing src/reasons.ts)',
  )
  for (const reason of Object.keys(REASONS)) t.ok(doc.includes(`| \`${reason}\` |`), reason)
})

void t.test('reason codes are `area.reason` in lower snake case', async (t) => {
  for (const reason of Object.keys(REASONS))
    t.match(reason, /^([a-z][a-z_]*\.[a-z][a-z0-9_]*|internal)$/, reason)
})
