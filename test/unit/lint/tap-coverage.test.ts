import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import coverageMap, { COVERED } from '../../helpers/coverage-map.js'
import { PROJECT_ROOT } from '../../helpers/project-root.js'

/** The kernel's limit on one environment variable of a spawned process (MAX_ARG_STRLEN). */
const VARIABLE_LIMIT = 128 * 1024

function files(dir: string, suffix: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath, entry.name))
}

void t.test(
  'tap records coverage of the sources through a map, not by excluding globs',
  async (t) => {
    const taprc = parse(readFileSync(join(PROJECT_ROOT, '.taprc'), 'utf8')) as Record<
      string,
      unknown
    >
    // tap expands each exclusion glob and hands every match to every test process in one variable.
    t.equal(taprc['coverage-exclude'], undefined)
    t.equal(taprc['coverage-map'], '.build/test/helpers/coverage-map.js')
    t.same(coverageMap('.build/groups/unit-1.test.js'), ['.build/src/**/*.js'])
    t.same(coverageMap('.build/test/integration/auth/refusal-wire.test.js'), COVERED)
  },
)

void t.test('what tap hands each test process stays far below the kernel’s limit', async (t) => {
  // The covered files (the map's globs matched) and the test files of the run, absolute, one a line.
  const covered = files('.build/src', '.js').join('\n')
  const tests = files('.build/test', '.test.js').join('\n')
  t.ok(covered.length > 0 && tests.length > 0, 'the build is there to measure')
  t.ok(covered.length < VARIABLE_LIMIT / 4, `covered files: ${covered.length} bytes`)
  t.ok(tests.length < VARIABLE_LIMIT / 4, `test files: ${tests.length} bytes`)
})
