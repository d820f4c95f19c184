import { runPart } from './harness.js'

await runPart('embedded', () => import('./k-audit-trail.js'))
