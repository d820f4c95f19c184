import { runPart } from './harness.js'

await runPart('postgres', () => import('./k-audit-trail.js'))
