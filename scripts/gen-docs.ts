import { writeFileSync } from 'node:fs'
import { renderConfigurationReference } from './config-reference.js'

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigurationReference())
process.stdout.write('wrote docs/configuration.md\n')
