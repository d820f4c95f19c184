/**
 * Source comments and test names cite AgentOS's rules by the ids of
 * docs/agentos-compatibility.md, never by section numbers of documents outside the repository:
 * every id cited must be defined there.
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

function sources(): string[] {
  return ['src/', 'test/'].flatMap((dir) =>
    readdirSync(projectUrl(dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `${dir}${file}`)
      .filter((file) => file !== SELF),
  )
}

/** Outside citations in a text, as `line: text`. */
function outsideCitations(text: string): string[] {
  const found: string[] = []
  text.split('\n').forEach((line, index) => {
    if (OUTSIDE.some((pattern) => pattern.test(line))) found.push(`${index + 1}: ${line.trim()}`)
  })
  return found
}

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
