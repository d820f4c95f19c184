import { runPart } from './harness.js'

await runPart('embedded', () => import('./g-h-list-revoke-3.0.js'))
