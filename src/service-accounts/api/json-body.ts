import { GatewayError } from '../../errors.js'
import { jsonNestingExceeds, jsonTooDeep } from '../../inbound/json-depth.js'
import { issues } from './pydantic-issues.js'

/**
 * A request body as FastAPI reads a JSON model: absent → 422 `missing`, unparsable → 422
 * `json_invalid` (MINT-5); nested deeper than `maxDepth` → 400, because a 422 echoes the
 * offending value and serializing a deeply nested one overflows the stack.
 */
export function parseJsonBody(raw: Buffer, maxDepth: number): unknown {
  if (raw.length === 0) {
    throw new GatewayError(
      'VALIDATION_FAILED',
      [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
      { reason: 'service_accounts.validation' },
    )
  }
  if (jsonNestingExceeds(raw, maxDepth)) throw jsonTooDeep()
  try {
    return JSON.parse(raw.toString('utf8')) as unknown
  } catch (error) {
    const message = (error as Error).message
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? 0)
    throw new GatewayError('VALIDATION_FAILED', [issues.jsonInvalid(position, message)], {
      reason: 'service_accounts.validation',
    })
  }
}
