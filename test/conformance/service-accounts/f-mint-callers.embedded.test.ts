import { runPart } from './harness.js'

await runPart('embedded', () => import('./f-mint-callers.js'))
