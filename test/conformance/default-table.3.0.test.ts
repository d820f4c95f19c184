import { runOnLine } from './line.js'

await runOnLine('3.0', () => import('./default-table.js'))
