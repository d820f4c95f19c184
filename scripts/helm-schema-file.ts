import { fileURLToPath } from 'node:url'
import { helmValuesSchema } from './helm-values-schema.js'
import { formatLikePrettier } from './prettier-format.js'

export const HELM_VALUES_SCHEMA_PATH = fileURLToPath(
  new URL('../helm/portcullis/values.schema.json', import.meta.url),
)

/** The text of helm/portcullis/values.schema.json, formatted as `prettier --check` expects. */
export async function renderHelmValuesSchema(): Promise<string> {
  return formatLikePrettier(JSON.stringify(helmValuesSchema()), HELM_VALUES_SCHEMA_PATH)
}
