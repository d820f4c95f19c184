import { runPart } from './harness.js'

await runPart('postgres', () => import('./i-pat-failures.js'))
