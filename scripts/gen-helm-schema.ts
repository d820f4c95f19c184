import { writeFileSync } from 'node:fs'
import { HELM_VALUES_SCHEMA_PATH, renderHelmValuesSchema } from './helm-schema-file.js'

// Writes helm/portcullis/values.schema.json; a test fails when it drifts from the config schema.
writeFileSync(HELM_VALUES_SCHEMA_PATH, await renderHelmValuesSchema())
process.stdout.write('wrote helm/portcullis/values.schema.json\n')
