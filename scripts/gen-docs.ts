import { readFileSync, writeFileSync } from 'node:fs'
import { renderConfigurationReference } from './config-reference.js'
import { formatLikePrettier } from './prettier-format.js'
import { withReasonsTable } from './reasons-table.js'
import { renderRouteCatalogue } from './route-catalogue-doc.js'

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigurationReference())
process.stdout.write('wrote docs/configuration.md\n')
const catalogue = new URL('../docs/route-catalogue.md', import.meta.url)
writeFileSync(catalogue, await formatLikePrettier(renderRouteCatalogue(), catalogue.pathname))
process.stdout.write('wrote docs/route-catalogue.md\n')
const metrics = new URL('../docs/metrics.md', import.meta.url)
writeFileSync(metrics, withReasonsTable(readFileSync(metrics, 'utf8')))
process.stdout.write('wrote the reason table of docs/metrics.md\n')
