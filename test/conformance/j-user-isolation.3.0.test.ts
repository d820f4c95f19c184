import { runOnLine } from './line.js'

await runOnLine('3.0', () => import('./j-user-isolation.js'))
