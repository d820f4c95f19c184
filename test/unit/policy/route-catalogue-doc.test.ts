import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { formatLikePrettier } from '../../../scripts/prettier-format.js'
import { renderRouteCatalogue } from '../../../scripts/route-catalogue-doc.js'

const DOC = fileURLToPath(new URL('../../../docs/route-catalogue.md', import.meta.url))

void t.test('docs/route-catalogue.md is what the catalogue says (npm run gen)', async (t) => {
  const expected = await formatLikePrettier(renderRouteCatalogue(), DOC)
  t.equal(readFileSync(DOC, 'utf8'), expected)
  for (const text of ['## AgentOS 2.9', '## AgentOS 3.0', '`/queue/jobs`', '(105 entries)']) {
    t.ok(expected.includes(text), text)
  }
})
