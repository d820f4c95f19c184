import { runOnLine } from './line.js'

await runOnLine('3.0', () => import('./c-rbac-routes.js'))
