// Run by tap before and after the suite (.taprc): removes what Node wrote for NODE_V8_COVERAGE,
// which only tells tsx to keep the TypeScript sources in its source maps (register-tsx.mjs); tap
// measures coverage through the inspector on its own.
import { rmSync } from 'node:fs'
import { URL } from 'node:url'

rmSync(new URL('../../.tap/v8-coverage/', import.meta.url), { recursive: true, force: true })
