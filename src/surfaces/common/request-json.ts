import { Readable } from 'node:stream'
import { GatewayError } from '../../errors.js'
import { jsonNestingExceeds, jsonTooDeep } from '../../inbound/json-depth.js'
import type { StageRequest } from '../../http/stage.js'
import { hasBody, readBoundedBody } from '../../inbound/request-body.js'
import { withBody, type ForwardPlan } from '../../upstream/forward-plan.js'
import { parseJson } from './json.js'

/** `server.max_body_bytes` and `server.max_json_depth`. */
export interface JsonBodyLimits {
  readonly maxBytes: number
  readonly maxDepth: number
}

/** A body a surface inspects: parsed, or `invalid` when it is not strict UTF-8 JSON. */
export type RequestJson = { readonly value: unknown } | { readonly invalid: true }

/** The JSON a stage read, and the plan that now forwards the bytes it read. */
export interface PlannedJson {
  /** Undefined when there is no body. */
  readonly json: RequestJson | undefined
  readonly plan: ForwardPlan
}

/**
 * Reads the request body a surface must inspect, from the client or from an earlier stage's
 * plan, and returns a plan that forwards those bytes (the client's stream is consumed). 400 when
 * it nests deeper than the limit.
 */
export async function readPlannedJson(
  request: StageRequest,
  plan: ForwardPlan,
  limits: JsonBodyLimits,
): Promise<PlannedJson> {
  const earlier = plan.body
  if (earlier === undefined && !hasBody(request.inbound.headers)) return { json: undefined, plan }
  const raw = Buffer.isBuffer(earlier?.content)
    ? earlier.content
    : await readBoundedBody(
        earlier?.content instanceof Readable ? earlier.content : request.body,
        limits.maxBytes,
        earlier === undefined ? request.inbound.headers['content-length'] : undefined,
      )
  const read = withBody(plan, { content: raw, contentType: earlier?.contentType })
  if (raw.length === 0) return { json: undefined, plan: read }
  if (jsonNestingExceeds(raw, limits.maxDepth)) throw jsonTooDeep()
  return { json: parseJson(raw) ?? { invalid: true }, plan: read }
}

/**
 * The parsed body, refusing one that is not JSON: the upstream might read it in a way this
 * gateway did not check (Python's json reads UTF-16 and NaN).
 */
export async function requirePlannedJson(
  request: StageRequest,
  plan: ForwardPlan,
  limits: JsonBodyLimits,
): Promise<{ readonly value: unknown; readonly plan: ForwardPlan }> {
  const read = await readPlannedJson(request, plan, limits)
  if (read.json === undefined) return { value: undefined, plan: read.plan }
  if ('invalid' in read.json) {
    throw new GatewayError('BAD_REQUEST', 'Request body must be valid UTF-8 JSON', {
      reason: 'surfaces.invalid_json',
    })
  }
  return { value: read.json.value, plan: read.plan }
}

/** Forwards `value` instead of the body planned so far (keeping its content type). */
export function withJsonBody(plan: ForwardPlan, value: unknown): ForwardPlan {
  return withBody(plan, {
    content: Buffer.from(JSON.stringify(value)),
    contentType: plan.body?.contentType,
  })
}
