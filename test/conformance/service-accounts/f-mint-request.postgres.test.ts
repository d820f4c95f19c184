import { runPart } from './harness.js'

await runPart('postgres', () => import('./f-mint-request.js'))
