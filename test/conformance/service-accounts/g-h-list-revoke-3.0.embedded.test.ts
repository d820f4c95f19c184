// Runs in a test process of its own: a store, open until the end (scripts/test-groups.ts).
import { runPart } from './harness.js'

await runPart('embedded', () => import('./g-h-list-revoke-3.0.js'))
