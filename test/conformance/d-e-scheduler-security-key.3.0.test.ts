import { runOnLine } from './line.js'

await runOnLine('3.0', () => import('./d-e-scheduler-security-key.js'))
