// Run by tap once after the test files (.taprc `after`).
import './clear-v8-coverage.mjs'
import { removeScratchDir } from './scratch-dir.mjs'

removeScratchDir()
