import { runPart } from './harness.js'

await runPart('postgres', () => import('./g-h-list-revoke-3.0.js'))
