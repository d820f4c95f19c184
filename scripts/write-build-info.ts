import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  BUILD_RECORD_FILE,
  commitFromGit,
  isCommitName,
  packageVersion,
  UNKNOWN_COMMIT,
  type BuildRecord,
} from '../src/build-info.js'

// Run by `npm run build` after tsc: records the version and the commit in dist/build-info.json,
// so that a built gateway names its commit without git. The commit is PORTCULLIS_COMMIT when set
// (the Docker build's build argument: the image's build context has no .git), else the checkout's
// HEAD, else unknown.
const root = fileURLToPath(new URL('../', import.meta.url))
const given = process.env.PORTCULLIS_COMMIT?.trim() ?? ''
if (given !== '' && !isCommitName(given)) {
  process.stderr.write(
    `PORTCULLIS_COMMIT=${JSON.stringify(given)}: not a commit name (letters, digits, . _ + -; at most 64)\n`,
  )
  process.exit(2)
}
const record: BuildRecord = {
  version: packageVersion(),
  commit: given !== '' ? given : (commitFromGit(root) ?? UNKNOWN_COMMIT),
}
writeFileSync(
  new URL(`../dist/${BUILD_RECORD_FILE}`, import.meta.url),
  `${JSON.stringify(record)}\n`,
)
process.stdout.write(
  `wrote dist/${BUILD_RECORD_FILE}: ${record.version}, commit ${record.commit}\n`,
)
