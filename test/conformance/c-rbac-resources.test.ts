import { runOnLine } from './line.js'

await runOnLine('2.9', () => import('./c-rbac-resources.js'))
