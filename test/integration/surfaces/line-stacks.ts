/**
 * One real gateway per AgentOS line, each pinned to its line in front of the demo runtime
 * speaking it, for tests that drive a surface with a protocol's own client on both lines.
 */
import type { ConfigInput, Teardown } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'
import { stack, type Stack } from '../../conformance/fixtures.js'
import { AGENTOS_LINES, type AgentOsLine } from '../../../src/policy/catalogue/index.js'

export interface LineStack {
  readonly line: AgentOsLine
  readonly s: Stack
}

/** `config` is called once per gateway (each needs a store of its own). */
export async function lineStacks(t: Teardown, config: () => ConfigInput): Promise<LineStack[]> {
  return Promise.all(
    AGENTOS_LINES.map(async (line) => {
      const runtime = await startRuntime(t, { agentos: line, sseIntervalMs: 5 })
      return { line, s: await stack(t, runtime, config(), {}, { agentOsLine: line }) }
    }),
  )
}

/** A fetch that sends `Authorization: Bearer <token>` (none when undefined). */
export function bearerFetch(token: string | undefined): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers)
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`)
    return fetch(input, { ...init, headers })
  }
}
