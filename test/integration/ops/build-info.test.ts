/**
 * Which build is running: `portcullis --version` and `portcullis_build_info` name the version,
 * the commit and the Node.js version. From a checkout the commit is git's HEAD; a built image,
 * which has no .git, reads the record the build wrote (production-install.test.ts builds one).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Child, childEnv, PROJECT_ROOT, tsxArgs } from '../../helpers/child-process.js'
import { startFoundationGateway } from '../../helpers/foundation.js'
import { metricValue } from '../../helpers/metrics.js'
import { startRuntime } from '../../helpers/runtime.js'

const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], {
  cwd: PROJECT_ROOT,
  encoding: 'utf8',
}).trim()
const VERSION = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version

void t.test('--version names the version, the commit and Node.js', async (t) => {
  const child = new Child(t, tsxArgs('src/main.ts', '--version'), childEnv())
  t.equal((await child.exit()).code, 0)
  t.same(child.stdout, [`${VERSION} (commit ${HEAD}, Node.js ${process.version})`])
})

void t.test('portcullis_build_info and the start-up line name the running build', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  t.equal(
    metricValue(await gateway.metrics(), 'portcullis_build_info', {
      version: VERSION,
      commit: HEAD,
      node_version: process.version,
    }),
    1,
  )
  t.match(
    gateway.logs.records().find((record) => record.msg === 'portcullis listening'),
    { version: VERSION, commit: HEAD },
  )
})

void t.test('the build refuses a commit name that is not one', async (t) => {
  const child = new Child(
    t,
    tsxArgs('scripts/write-build-info.ts'),
    childEnv({ PORTCULLIS_COMMIT: 'not a commit; rm -rf /' }),
  )
  t.equal((await child.exit()).code, 2)
  t.same(child.stderr, [
    'PORTCULLIS_COMMIT="not a commit; rm -rf /": not a commit name (letters, digits, . _ + -; at most 64)',
  ])
  t.same(child.stdout, [], 'nothing written')
})
