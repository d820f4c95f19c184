import { GatewayError } from '../errors.js'
import type { ReasonFor } from '../reasons.js'
import { FieldNames } from './field-name.js'

/**
 * Node's parser stops collecting fields past `maxHeadersCount` without failing the request; the
 * server is set one above the limit so that a request over it is detected here and refused.
 */
export function assertHeaderCount(rawHeaders: readonly string[], max: number): void {
  if (rawHeaders.length / 2 > max) {
    throw new GatewayError('HEADERS_TOO_LARGE', 'Request header fields too large', {
      reason: 'headers.count',
    })
  }
}

// Two Host fields make the target ambiguous (RFC 9112 §3.2 requires a 400); two Content-Type
// fields make the body ambiguous: the gateway reads the first, another parser may read the last.
const SINGLETONS: Readonly<Record<string, ReasonFor<'BAD_REQUEST'>>> = {
  host: 'headers.duplicate_host',
  'content-type': 'headers.duplicate_content_type',
}

/**
 * Refuses a request that gives a field twice whose copies could be read differently, or whose
 * `Connection` header names a field the gateway decides on. One pass over the raw fields, each
 * name compared with the few that matter as it is spelled.
 */
export function assertHeaderFields(rawHeaders: readonly string[]): void {
  // A bit per singleton seen: every request has a Host field, and a set made for it was the
  // pass's largest cost.
  let seen = 0
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = WATCHED.find(rawHeaders[index] as string)
    if (name === undefined) continue
    if (name === 'connection') {
      refuseEndToEndOptions(rawHeaders[index + 1] as string)
      continue
    }
    const reason = SINGLETONS[name]
    if (reason === undefined) continue
    const bit = 1 << SINGLETON_NAMES.indexOf(name)
    if ((seen & bit) !== 0) throw new GatewayError('BAD_REQUEST', 'Bad Request', { reason })
    seen |= bit
  }
}

// Fields that say what the request is: the gateway decides on them (how the body is parsed and
// pinned, which component runs), so a hop must not remove them behind its back.
const END_TO_END = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'host',
  'x-agent-id',
])

const SINGLETON_NAMES = Object.keys(SINGLETONS)
const WATCHED = new FieldNames(['connection', ...SINGLETON_NAMES])

/**
 * A field listed in `Connection` is removed before forwarding (RFC 9110 §7.6.1). Listing one the
 * gateway relied on would let the upstream read the request differently (a body without its
 * Content-Type is JSON to FastAPI): such a request is refused, as the RFC forbids sending it.
 */
function refuseEndToEndOptions(value: string): void {
  // Nearly every client sends one option (`keep-alive`): no list to split.
  if (!value.includes(',')) {
    refuseEndToEndOption(value)
    return
  }
  for (const option of value.split(',')) refuseEndToEndOption(option)
}

function refuseEndToEndOption(option: string): void {
  if (END_TO_END.has(option.trim().toLowerCase())) {
    throw new GatewayError('BAD_REQUEST', 'Bad Request', {
      reason: 'headers.connection_option',
    })
  }
}
