import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import {
  buildInfo,
  commitFromGit,
  describeBuild,
  isCommitName,
  packageVersion,
} from '../../src/build-info.js'

void t.test('the running build: package version, a commit, this Node.js', async (t) => {
  const build = buildInfo()
  t.equal(build.version, packageVersion())
  t.ok(isCommitName(build.commit), build.commit)
  t.equal(build.nodeVersion, process.version)
  t.equal(buildInfo(), build, 'read once per process')
  t.equal(
    describeBuild({ version: '1.2.3', commit: 'abc123', nodeVersion: 'v20.18.1' }),
    '1.2.3 (commit abc123, Node.js v20.18.1)',
  )
})

void t.test('outside a git checkout there is no commit to read', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-no-git-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  t.equal(commitFromGit(dir), undefined)
  t.equal(commitFromGit(join(dir, 'missing')), undefined, 'nor in a directory that is not there')
})

void t.test(
  'commit names: hashes, tags, describe output; nothing a label should not hold',
  async (t) => {
    for (const name of [
      '328a258c00222950c3ca1ccd4310c3fc00ddc0f4',
      'v0.1.0',
      'v0.1.0-3-g328a258',
      'unknown',
    ])
      t.ok(isCommitName(name), name)
    for (const name of ['', ' abc', 'a b', 'x'.repeat(65), 'abc"}', '-rf'])
      t.notOk(isCommitName(name), JSON.stringify(name))
  },
)
