import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import { PROJECT_ROOT as ROOT } from '../../helpers/project-root.js'

/** The operations documents: their relative links must lead somewhere. */
const DOCS = [
  'docs/getting-started.md',
  'docs/deployment.md',
  'docs/operations.md',
  'docs/metrics.md',
  'docs/migration-from-agentos.md',
  'helm/portcullis/README.md',
  'README.md',
  'SECURITY.md',
]

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>()
  for (const match of markdown.matchAll(/^#{1,6} (.+)$/gm))
    found.add(
      (match[1] as string)
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    )
  return found
}

void t.test('every relative link and anchor in the operations docs resolves', async (t) => {
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '')
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string
      if (/^[a-z]+:/.test(target)) continue
      const [path = '', anchor] = target.split('#')
      const file = path === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), path)
      t.ok(existsSync(file), `${doc}: ${target} exists`)
      if (anchor !== undefined && existsSync(file) && file.endsWith('.md'))
        t.ok(anchors(readFileSync(file, 'utf8')).has(anchor), `${doc}: #${anchor} is a heading`)
    }
  }
})
