/**
 * `serve` under `upstream.agentos_version: auto` in front of an upstream no route catalogue
 * covers, or one that does not say which AgentOS it is: one line naming the setting, what the
 * upstream reported and what to do; exit 2 before anything listens.
 */
import t from 'tap'
import { startFakeAgentOs, type AgentOsFace } from '../../helpers/agentos-upstream.js'
import { portcullis, tempConfig } from './agentos-line-helpers.js'

const SETTING = 'upstream.agentos_version, PORTCULLIS_AGENTOS_VERSION is auto'
const PIN = "to run with that line's catalogue (routes it does not know are then denied)"
const NEWER =
  'newer than every AgentOS line with a route catalogue (2.9, 3.0): run a Portcullis release that supports it, or pin upstream.agentos_version to "3.0"'

void t.test('an upstream no catalogue covers, or unreadable: exit 2, one line', async (t) => {
  const cases: [AgentOsFace, string][] = [
    [{ agnoVersion: '3.1.0', osVersion: '1.0.0' }, `reports agno 3.1.0, ${NEWER} ${PIN}`],
    [{ agnoVersion: '4.0.0', osVersion: '1.0.0' }, `reports agno 4.0.0, ${NEWER} ${PIN}`],
    [
      { agnoVersion: '2.8.0' },
      `reports agno 2.8.0, older than every AgentOS line with a route catalogue (2.9, 3.0): upgrade AgentOS to 2.9 or later, or pin upstream.agentos_version to "2.9" ${PIN}`,
    ],
    [
      { info: { status: 404, body: '{"detail":"Not Found"}' } },
      `reports an answer that does not say which AgentOS it is (GET /info answered 404): check that upstream.url points at AgentOS, or pin upstream.agentos_version to the line it runs ("2.9" or "3.0") ${PIN}`,
    ],
  ]
  // Each child compiles TypeScript at start; they run side by side.
  const runs = await Promise.all(
    cases.map(async ([face, reported]) => {
      const upstream = await startFakeAgentOs(t, face)
      const child = portcullis(t, ['serve', '--config', tempConfig(t, upstream.url)], {
        PORTCULLIS_AGENTOS_VERSION: 'auto',
      })
      const expected = `portcullis: ${SETTING}, and the upstream at ${upstream.url} ${reported}`
      return { child, expected, exit: await child.exit() }
    }),
  )
  for (const { child, expected, exit } of runs) {
    t.equal(exit.code, 2, expected)
    t.same(child.stderr, [expected], 'one line')
    t.notOk(
      child.stdout.some((line) => line.includes('portcullis listening')),
      'nothing listened',
    )
  }
})
