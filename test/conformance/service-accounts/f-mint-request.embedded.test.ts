import { runPart } from './harness.js'

await runPart('embedded', () => import('./f-mint-request.js'))
