/**
 * Loaded first by every test process (.taprc `node-arg`): points the temporary directory at the
 * run's scratch directory and keeps coverage to the test processes themselves.
 *
 * Children (gateways started as processes, the CLI, the embedded store's initialisation) are not
 * measured: their coverage would blur the test processes' own, and measuring them costs each one
 * a slower start.
 */
import process from 'node:process'
import { useScratchDir } from './scratch-dir.js'

useScratchDir()
process.env._TAPJS_PROCESSINFO_COVERAGE_ = '0'
