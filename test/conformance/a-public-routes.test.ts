import { runOnLine } from './line.js'

await runOnLine('2.9', () => import('./a-public-routes.js'))
