// Runs in a test process of its own: a store, open until the end (scripts/test-groups.ts).
import { runPart } from './harness.js'

await runPart('postgres', () => import('./k-audit-retention.js'))
