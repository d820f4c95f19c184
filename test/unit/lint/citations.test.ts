/**
 * Source comments and test names cite AgentOS's rules by the ids of
 * docs/agentos-compatibility.md, never by section numbers of documents outside the repository:
 * every id cited must be defined there. Nor do they cite planning documents (an issue, its
 * numbered targets): code says why, the history says when. The benchmark's target table is
 * exempt: its rows are the published targets, by the issue that set them.
 */
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { projectUrl } from '../../helpers/project-root.js'

const SELF = 'test/unit/lint/citations.test.ts'
const OUTSIDE = [
  /\b[Rr]eference (section )?\d+(\.\d+)?\b/,
  /\b[Ss]pec(ification)? \d+\.\d+\b/,
  /\brule \d+\b/,
  /\b[A-M]\.\d{1,3}\b/,
  /\bchecklist \d+/i,
]
const CITED =
  /\b(?:(AUTH|CONF|PATH|JWT|TOKEN|PAT|ROUTE|SCOPE|RBAC|MINT|SA|ISO|IDENT|INFO|MCP|A2A|AGUI|WS|DISC|FORM|HEAD|OWN)-\d+|V3-[A-Z]+-\d+G?)\b(?!-)/g

const PLANNING = [/\bissues? #?\d+/i, /\btargets? #?\d+\b/i]
// The benchmark reports targets by the issue that set them (docs/benchmarks.md).
const PLANNING_EXEMPT = [
  'bench/report/',
  'bench/scenarios/',
  'bench/phases.ts',
  'bench/lib/',
  'bench/run.ts',
  'test/unit/bench/',
]

function sources(dirs: readonly string[] = ['src/', 'test/']): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(projectUrl(dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `${dir}${file}`)
      .filter((file) => file !== SELF),
  )
}

/** Lines of a text matching any of `patterns`, as `line: text`. */
function citations(text: string, patterns: readonly RegExp[] = OUTSIDE): string[] {
  const found: string[] = []
  text.split('\n').forEach((line, index) => {
    if (patterns.some((pattern) => pattern.test(line))) found.push(`${index + 1}: ${line.trim()}`)
  })
  return found
}

const outsideCitations = (text: string) => citations(text)
const planningCitations = (text: string) => citations(text, PLANNING)

void t.test('no source or test cites a document outside the repository', async (t) => {
  const found = sources().flatMap((file) =>
    outsideCitations(readFileSync(projectUrl(file), 'utf8')).map((hit) => `${file}:${hit}`),
  )
  t.same(found, [])
})

void t.test('every id cited is defined in docs/agentos-compatibility.md', async (t) => {
  const doc = readFileSync(projectUrl('docs/agentos-compatibility.md'), 'utf8')
  const defined = new Set(
    [...doc.matchAll(/\*\*((?:V3-)?[A-Z0-9]+-\d+G?)\*\*/g)].map((match) => match[1]),
  )
  t.ok(defined.size > 60, `${defined.size} rules defined`)
  const undefinedIds = new Set<string>()
  for (const file of sources()) {
    for (const [id] of readFileSync(projectUrl(file), 'utf8').matchAll(CITED)) {
      if (!defined.has(id)) undefinedIds.add(`${file}: ${id}`)
    }
  }
  t.same([...undefinedIds], [])
})

void t.test('the check finds each kind of outside citation', async (t) => {
  for (const line of [
    '/** Who has route scopes enforced (reference 6.11). */',
    '// Reference 1.3: the anchored rule',
    '* forbidden by specification 5.2 rule 8',
    "void t.test('D.77 the scheduler', async () => {})",
    "'header values (checklist 10–15)'",
  ]) {
    t.equal(outsideCitations(line).length, 1, line)
  }
  t.same(outsideCitations('// AUTH-8: who has route scopes enforced (RFC 9110 §7.6.1)'), [])
})

void t.test('no source, script or test cites a planning document', async (t) => {
  const files = sources(['src/', 'test/', 'scripts/', 'bench/']).filter(
    (file) => !PLANNING_EXEMPT.some((exempt) => file.startsWith(exempt)),
  )
  t.ok(files.length > 300, `${files.length} files read`)
  const found = files.flatMap((file) =>
    planningCitations(readFileSync(projectUrl(file), 'utf8')).map((hit) => `${file}:${hit}`),
  )
  t.same(found, [])
})

void t.test('the check finds each kind of planning citation', async (t) => {
  for (const line of [
    '// with 100,000 cached accounts (issue 14, target 8)',
    ' * Issue 11 item 1: service accounts',
    '* Resource limits (issue #6, point 4)',
    '// as target 7 demands',
  ]) {
    t.equal(planningCitations(line).length, 1, line)
  }
  t.same(planningCitations('// AUTH-3: the issuer claim; issues a token; targets the upstream'), [])
})
