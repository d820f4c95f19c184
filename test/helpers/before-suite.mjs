// Run by tap once before the test files (.taprc `before`): clears what Node wrote for
// NODE_V8_COVERAGE (clear-v8-coverage.mjs), makes the scratch directory (scratch-dir.mjs), builds
// the gateway the process tests run and the embedded-store template the test gateways copy
// (built-gateway.mjs), so that parallel test files never make them at the same time.
import { buildGateway, makeStoreTemplate } from './built-gateway.mjs'
import './clear-v8-coverage.mjs'
import { prepareScratchDir } from './scratch-dir.mjs'

prepareScratchDir()

buildGateway()
await makeStoreTemplate()
