import { GatewayError } from '../../errors.js'
import type { ClientBody } from '../../inbound/client-body.js'

/**
 * The body as JSON (undefined when there is none), refusing one that is not: the upstream might
 * read it in a way this gateway did not check (Python's json reads UTF-16 and NaN).
 */
export async function requireJson(body: ClientBody): Promise<unknown> {
  const json = await body.json()
  if (json === undefined) return undefined
  if ('invalid' in json) {
    throw new GatewayError('BAD_REQUEST', 'Request body must be valid UTF-8 JSON', {
      reason: 'surfaces.invalid_json',
    })
  }
  return json.value
}
