import { authSchema } from '../../../src/config/sections/auth.js'
import type { Config } from '../../../src/config/schema.js'
import type { Credential } from '../../../src/auth/credential.js'
import { inboundRequest } from '../../helpers/inbound.js'
import type { InboundRequest } from '../../../src/inbound/inbound-request.js'
import { createLogger, type Logger } from '../../../src/logger.js'
import { GatewayError } from '../../../src/errors.js'
import { LogCapture } from '../../helpers/log-capture.js'

/** The `auth:` block as the config loader would produce it (inline secrets only). */
export function authConfig(input: Record<string, unknown> = {}): Config['auth'] {
  return authSchema.parse(input) as Config['auth']
}

export function testLogger(): { logger: Logger; logs: LogCapture } {
  const logs = new LogCapture()
  return { logger: createLogger({ level: 'debug', destination: logs }), logs }
}

export function bearer(token: string): Credential {
  return { token, source: 'header' }
}

export function inbound(rawHeaders: string[]): InboundRequest {
  return inboundRequest({ rawHeaders })
}

/**
 * Runs `fn` and returns the refusal it makes: a GatewayError returned (a verifier's refusal is a
 * value) or thrown, at once or by its promise. Fails the test with a clear message otherwise.
 */
export async function gatewayErrorOf(fn: () => unknown): Promise<GatewayError> {
  let result: unknown
  try {
    result = await fn()
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw new Error(`expected a GatewayError, got ${String(error)}`, { cause: error })
  }
  if (result instanceof GatewayError) return result
  throw new Error('expected a GatewayError, none was thrown or returned')
}

/** Polls `condition` until it holds or `timeoutMs` passes (a bound, not an assertion on time). */
export async function eventually(
  condition: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return condition()
}
