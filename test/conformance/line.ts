/**
 * The AgentOS line a conformance part runs against. Each part (`a-public-routes.ts`, …) has a test
 * file per line (`<part>.test.ts` for 2.9, `<part>.3.0.test.ts` for 3.0), so that the two run side
 * by side and neither comes near the test runner's time limit: the file names its line, then loads
 * the part, which starts the demo runtime as that AgentOS and pins every gateway to that line.
 */
import type { AgentRuntime } from '../../demo/runtime/index.js'
import type { AgentOsLine } from '../../src/policy/catalogue/agentos-line.js'
import type { ConfigInput, Teardown } from '../helpers/gateway.js'
import { startRuntime } from '../helpers/runtime.js'
import { stack, type Stack } from './fixtures.js'

let selected: AgentOsLine | undefined

/** Runs a part on one AgentOS line. */
export async function runOnLine(line: AgentOsLine, load: () => Promise<unknown>): Promise<void> {
  selected = line
  await load()
}

/** The line of this test file (set by runOnLine). */
export function partLine(): AgentOsLine {
  if (selected === undefined) throw new Error('load the part through runOnLine(line, …)')
  return selected
}

/** The demo runtime as an open AgentOS of this file's line, closed at teardown. */
export function lineRuntime(t: Teardown): Promise<AgentRuntime> {
  return startRuntime(t, { agentos: partLine() })
}

/** `stack` of fixtures.ts, the gateway pinned to this file's line. */
export function stackOnLine(
  t: Teardown,
  runtime: AgentRuntime,
  config: ConfigInput,
  env: Record<string, string> = {},
): Promise<Stack> {
  return stack(t, runtime, config, env, { agentOsLine: partLine() })
}
