import { readFileSync } from 'node:fs'
import t from 'tap'
import { formatLikePrettier } from '../../../scripts/prettier-format.js'
import { renderRouteCatalogue } from '../../../scripts/route-catalogue-doc.js'
import { projectPath } from '../../helpers/project-root.js'

const DOC = projectPath('docs/route-catalogue.md')

void t.test('docs/route-catalogue.md is what the catalogue says (npm run gen)', async (t) => {
  const expected = await formatLikePrettier(renderRouteCatalogue(), DOC)
  t.equal(readFileSync(DOC, 'utf8'), expected)
  for (const text of [
    '## AgentOS 2.9',
    '## AgentOS 3.0',
    '`/queue/jobs`',
    '(105 entries)',
    '## Routes Portcullis adds',
    '`/service-accounts/*/events`',
  ]) {
    t.ok(expected.includes(text), text)
  }
})
