/**
 * Loads TypeScript for the test processes with tsx (as `--import=tsx` would), measured on the
 * TypeScript sources, and keeps coverage to the test processes themselves.
 *
 * tsx minifies whitespace and puts the original source into its source maps only when it sees
 * NODE_V8_COVERAGE; tap collects coverage through the inspector instead, so without the sources
 * every file would be reported by the lines of its minified output. `.taprc` sets the variable
 * for the test processes; it is removed here, after tsx has read it, so that no child inherits it.
 *
 * Children (gateways started as processes, the CLI, the embedded store's initialisation) are not
 * measured: they load TypeScript without these source maps, and their coverage would blur the
 * test processes' own.
 */
import process from 'node:process'
import { useScratchDir } from './scratch-dir.mjs'

useScratchDir()

await import('tsx')
// tsx's hooks run in a thread of their own, started asynchronously: loading one TypeScript module
// makes sure they have read the variable before it goes.
await import('./typescript-ready.ts')
delete process.env.NODE_V8_COVERAGE
process.env._TAPJS_PROCESSINFO_COVERAGE_ = '0'
