import { join } from 'node:path'
import { PACKAGE_ROOT } from '../src/package-root.js'
import { helmValuesSchema } from './helm-values-schema.js'
import { formatLikePrettier } from './prettier-format.js'

export const HELM_VALUES_SCHEMA_PATH = join(PACKAGE_ROOT, 'helm/portcullis/values.schema.json')

/** The text of helm/portcullis/values.schema.json, formatted as `prettier --check` expects. */
export async function renderHelmValuesSchema(): Promise<string> {
  return formatLikePrettier(JSON.stringify(helmValuesSchema()), HELM_VALUES_SCHEMA_PATH)
}
