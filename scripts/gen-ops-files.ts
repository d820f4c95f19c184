import { writeFileSync } from 'node:fs'
import { renderOpsFiles, repositoryPath } from './ops-files.js'

// Writes the Grafana dashboard and the Helm chart's copies of it and of the alert rules; a test
// fails when they drift. Run after editing scripts/grafana-dashboard.ts or the alert rules.
for (const [path, content] of await renderOpsFiles()) {
  writeFileSync(repositoryPath(path), content)
  process.stdout.write(`wrote ${path}\n`)
}
