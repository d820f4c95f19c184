import { runPart } from './harness.js'

await runPart('embedded', () => import('./g-h-list-revoke.js'))
