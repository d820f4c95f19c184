/**
 * The AgentOS 3.0 integration tests' fixtures: the demo runtime as an open AgentOS 3.0.0a3 and
 * real gateways pinned to the 3.0 line in front of it, with the conformance suite's credentials
 * (K-signed JWTs, the security key, the scheduler's internal token) and request helper.
 */
import type { AgentRuntime } from '../../../demo/runtime/index.js'
import type { ConfigInput, Teardown } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'
import { stack, type Stack } from '../../conformance/fixtures.js'

export {
  ADMIN,
  forwarded,
  ip,
  jConfig,
  K,
  jwt,
  refused,
  sConfig,
  upstreamHeader,
  type Reply,
  type Stack,
} from '../../conformance/fixtures.js'
export { grants, mint } from '../../conformance/service-accounts/harness.js'

/** The security key and the scheduler's internal token of `sConfig` (and of `jConfig` given it). */
export const SECURITY_KEY = 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d'
export const SCHEDULER_TOKEN = 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f'

/** AgentOS 3.0's 403 for an identity-less caller under user isolation (V3-ISO-1). */
export const MISSING_IDENTITY = 'Authenticated request is missing a user identity'

/** The demo runtime as an open AgentOS 3.0.0a3, closed at teardown. */
export function startRuntime30(t: Teardown): Promise<AgentRuntime> {
  return startRuntime(t, { agentos: '3.0' })
}

/** A gateway with `config`, pinned to the 3.0 line, in front of `runtime`. */
export function stack30(
  t: Teardown,
  runtime: AgentRuntime,
  config: ConfigInput,
  env: Record<string, string> = {},
): Promise<Stack> {
  return stack(t, runtime, config, env, { agentOsLine: '3.0' })
}
