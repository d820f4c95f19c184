import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { fullRunFiles, OWN_PROCESS_MARK } from '../../../scripts/test-groups.js'

function write(root: string, file: string, text = ''): void {
  mkdirSync(join(root, file, '..'), { recursive: true })
  writeFileSync(join(root, file), text)
}

void t.test('unit files run a few to a process; marked and other files alone', async (t) => {
  const root = t.testdir()
  const units = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => `test/unit/x/${name}.test`)
  for (const unit of units) {
    write(root, `${unit}.ts`, unit.endsWith('c.test') ? `// ${OWN_PROCESS_MARK} why\n` : '')
    write(root, `.build/${unit}.js`)
  }
  write(root, 'test/integration/i.test.ts')
  write(root, '.build/test/integration/i.test.js')
  write(root, '.build/test/unit/x/helpers.js')
  write(root, '.build/groups/stale.test.js')

  const files = fullRunFiles(root, '.build')
  t.same(files, [
    '.build/groups/unit-1.test.js',
    '.build/groups/unit-2.test.js',
    '.build/groups/unit-3.test.js',
    '.build/groups/unit-4.test.js',
    '.build/test/integration/i.test.js',
    '.build/test/unit/x/c.test.js',
  ])
  const first = readFileSync(join(root, '.build/groups/unit-1.test.js'), 'utf8')
  t.match(first, /^import t from 'tap'\n/)
  t.match(
    first,
    [
      'await t.test(".build/test/unit/x/a.test.js", () => import("../test/unit/x/a.test.js"))',
      'await t.test(".build/test/unit/x/f.test.js", () => import("../test/unit/x/f.test.js"))',
    ].join('\n'),
    'members in order, each loaded behind the tests of the one before',
  )
  t.notMatch(first, 'c.test.js', 'the marked file is in no group')
})
