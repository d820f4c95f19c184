/**
 * docs/agentos-compatibility.md names, for every rule, the code where it lives and the tests that
 * drive it: each repository path it cites must exist, so that a moved or split file cannot leave
 * a rule pointing at nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, basename } from 'node:path'
import t from 'tap'
import { projectPath } from '../../helpers/project-root.js'

const DOC = 'docs/agentos-compatibility.md'
const ROOTS = ['src', 'test', 'demo', 'scripts', 'bench', 'docs', 'config', 'deploy', '.ci']
const PATH = new RegExp(
  String.raw`\x60((?:${ROOTS.join('|').replace('.', '\\.')})/[^\x60\s]*)\x60`,
  'g',
)

/** Repository paths cited in a text; templates such as `agentos-<line>.ts` are not paths. */
function citedPaths(text: string): string[] {
  const paths = [...text.matchAll(PATH)].map((match) => match[1] as string)
  return [...new Set(paths)].filter((path) => !path.includes('<'))
}

/** Whether a cited path exists; a `*` in its last segment matches any characters. */
function exists(path: string): boolean {
  if (!path.includes('*')) return existsSync(projectPath(path))
  const directory = projectPath(dirname(path))
  const pattern = new RegExp(
    `^${basename(path)
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )
  return existsSync(directory) && readdirSync(directory).some((name) => pattern.test(name))
}

void t.test(`every Code and Tests path of ${DOC} exists`, async (t) => {
  const paths = citedPaths(readFileSync(projectPath(DOC), 'utf8'))
  t.ok(paths.length > 200, `${paths.length} paths cited`)
  t.same(
    paths.filter((path) => !exists(path)),
    [],
  )
})

void t.test('the check reads paths, globs and templates as meant', async (t) => {
  t.same(
    citedPaths(
      'Code: `src/errors.ts`, `AuthPipeline.isPublic`. Tests: `test/unit/auth/`, `src/policy/catalogue/agentos-<line>.ts`, `test/unit/policy/checklist-c-*.test.ts`, `routers/media/media.py`',
    ),
    ['src/errors.ts', 'test/unit/auth/', 'test/unit/policy/checklist-c-*.test.ts'],
  )
  t.ok(exists('test/unit/policy/checklist-c-*.test.ts'))
  t.notOk(exists('test/unit/policy/checklist-z-*.test.ts'))
  t.notOk(exists('test/integration/cli/commands.test.ts'), 'a file split long ago')
  t.notOk(exists('nowhere/*.ts'))
})
