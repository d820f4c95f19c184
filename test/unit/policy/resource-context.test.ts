import t from 'tap'
import { testCatalogue } from '../../helpers/catalogue.js'

const catalogue = testCatalogue()
const resourceContext = (path: string) => catalogue.match('GET', path).context

void t.test('the anchored rule of SCOPE-3', async (t) => {
  t.same(resourceContext('/agents'), { family: 'agents', id: undefined })
  t.same(resourceContext('/agents/a1/runs'), { family: 'agents', id: 'a1' })
  t.same(resourceContext('/teams/t1'), { family: 'teams', id: 't1' })
  t.same(resourceContext('/workflows/w1/runs/r/resume'), { family: 'workflows', id: 'w1' })
  t.same(resourceContext('/a2a/teams/t1/v1/message:send'), { family: 'teams', id: 't1' })
  t.same(resourceContext('/a2a/agents'), { family: 'agents', id: undefined })
  t.same(resourceContext('/agents//x'), { family: 'agents', id: undefined }, 'empty id is no id')
  for (const path of [
    '/knowledge/content/agents-x',
    '/agentsfoo',
    '/traces/agents-run-1',
    '/knowledge/agents/sources',
    '/a2a/message/send',
    '/a2a',
    '/Agents',
    '/protocol/agents/a1/v1/message:send',
    '/',
    'agents',
  ]) {
    t.equal(resourceContext(path), undefined, path)
  }
})
