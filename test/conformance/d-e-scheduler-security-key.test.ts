import { runOnLine } from './line.js'

await runOnLine('2.9', () => import('./d-e-scheduler-security-key.js'))
