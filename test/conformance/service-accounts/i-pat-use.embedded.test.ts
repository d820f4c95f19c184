import { runPart } from './harness.js'

await runPart('embedded', () => import('./i-pat-use.js'))
