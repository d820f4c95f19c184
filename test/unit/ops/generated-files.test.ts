import { readFileSync } from 'node:fs'
import t from 'tap'
import {
  HELM_VALUES_SCHEMA_PATH,
  renderHelmValuesSchema,
} from '../../../scripts/helm-schema-file.js'
import { renderOpsFiles, repositoryPath } from '../../../scripts/ops-files.js'

void t.test('helm/portcullis/values.schema.json is what the generator renders', async (t) => {
  t.equal(
    readFileSync(HELM_VALUES_SCHEMA_PATH, 'utf8'),
    await renderHelmValuesSchema(),
    'up to date (run `npm run gen` after a config schema change)',
  )
})

void t.test('the dashboard and the chart copies are what the generator renders', async (t) => {
  const files = await renderOpsFiles()
  t.equal(files.size, 3)
  for (const [path, content] of files)
    t.equal(
      readFileSync(repositoryPath(path), 'utf8'),
      content,
      `${path} up to date (run \`npx tsx scripts/gen-ops-files.ts\`)`,
    )
})
