/**
 * `config check` says which AgentOS line the gateway would use; it reads the upstream only when
 * asked (`--probe-upstream`), and then judges it as `serve` would.
 */
import t from 'tap'
import { AGENTOS_2_9, AGENTOS_3_0, startFakeAgentOs } from '../../helpers/agentos-upstream.js'
import type { Child } from '../../helpers/child-process.js'
import { closedPort } from '../../helpers/runtime.js'
import { portcullis, tempConfig } from './agentos-line-helpers.js'

void t.test('the line it would use; --probe-upstream reads it', async (t) => {
  const untouched = await startFakeAgentOs(t, AGENTOS_3_0)
  const threeZero = await startFakeAgentOs(t, AGENTOS_3_0)
  const twoNine = await startFakeAgentOs(t, AGENTOS_2_9)
  const newer = await startFakeAgentOs(t, { agnoVersion: '3.1.0' })
  const nothing = `http://127.0.0.1:${await closedPort()}`
  const check = (url: string, version: string, ...flags: string[]): Child =>
    portcullis(t, ['config', 'check', ...flags, '--config', tempConfig(t, url)], {
      PORTCULLIS_AGENTOS_VERSION: version,
    })
  // Each child compiles TypeScript at start; they run side by side.
  const children = {
    auto: check(untouched.url, 'auto'),
    detected: check(threeZero.url, 'auto', '--probe-upstream'),
    mismatch: check(twoNine.url, '3.0', '--probe-upstream', '--strict'),
    unsupported: check(newer.url, 'auto', '--probe-upstream'),
    down: check(nothing, 'auto', '--probe-upstream'),
  }
  const exits = Object.fromEntries(
    await Promise.all(
      Object.entries(children).map(async ([name, child]) => [name, (await child.exit()).code]),
    ),
  ) as Record<keyof typeof children, number | null>
  const summary = (child: Child): string | undefined =>
    child.stdout[0]?.replace(/^.*: valid \(/, '(')
  const security = '(auth mode security_key, JWT authorization off, upstream'

  t.equal(exits.auto, 0)
  t.equal(
    summary(children.auto),
    `${security} ${untouched.url}, AgentOS auto: read from the upstream at start)`,
  )
  t.same(untouched.calls, [], 'without --probe-upstream the upstream is not contacted')

  t.equal(exits.detected, 0)
  t.equal(
    summary(children.detected),
    `${security} ${threeZero.url}, AgentOS 3.0 (detected: agno 3.0.0a3))`,
  )
  t.ok(threeZero.calls.some((call) => call.path === '/info' && call.probe))

  t.equal(
    summary(children.mismatch),
    `${security} ${twoNine.url}, AgentOS 3.0 (pinned; upstream reports agno 2.9.0: a mismatch))`,
  )
  t.equal(exits.mismatch, 2, 'a warning, which --strict refuses')
  t.match(children.mismatch.stderr, [
    'warning: upstream.agentos_version pins 3.0, but the upstream reports agno 2.9.0: unless auth.deny_unmapped_routes is set, routes the 3.0 catalogue does not know are denied',
    /1 warning\(s\), refused because of --strict$/,
  ])

  t.equal(exits.unsupported, 2, 'what serve would refuse')
  t.match(children.unsupported.stderr, [
    /^portcullis: upstream\.agentos_version, PORTCULLIS_AGENTOS_VERSION is auto, and the upstream at .* reports agno 3\.1\.0, newer than/,
  ])
  t.equal(exits.down, 1)
  t.same(children.down.stderr, [
    `portcullis: the upstream at ${nothing} does not answer (refused): its AgentOS version cannot be read`,
  ])
})
