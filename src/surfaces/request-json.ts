import { Readable } from 'node:stream'
import { GatewayError } from '../errors.js'
import { jsonNestingExceeds, jsonTooDeep } from '../http/json-depth.js'
import type { GatewayContext } from '../http/state.js'
import { hasBody, readBoundedBody } from '../inbound/request-body.js'
import { parseJson } from './json.js'

/** `server.max_body_bytes` and `server.max_json_depth`. */
export interface JsonBodyLimits {
  readonly maxBytes: number
  readonly maxDepth: number
}

/** A body a surface inspects: parsed, or `invalid` when it is not strict UTF-8 JSON. */
export type RequestJson = { readonly value: unknown } | { readonly invalid: true }

/**
 * Reads the request body a surface must inspect, from the client or from an earlier stage's
 * rewrite, and keeps it as the body to forward. Undefined when there is no body; 400 when it
 * nests deeper than the limit.
 */
export async function readRequestJson(
  ctx: GatewayContext,
  limits: JsonBodyLimits,
): Promise<RequestJson | undefined> {
  const state = ctx.state
  const earlier = state.upstreamBody
  if (earlier === undefined && !hasBody(ctx.req.headers)) return undefined
  const raw = Buffer.isBuffer(earlier?.body)
    ? earlier.body
    : await readBoundedBody(
        earlier?.body instanceof Readable ? earlier.body : ctx.req,
        limits.maxBytes,
        earlier === undefined ? ctx.req.headers['content-length'] : undefined,
      )
  state.upstreamBody = { ...earlier, body: raw }
  if (raw.length === 0) return undefined
  if (jsonNestingExceeds(raw, limits.maxDepth)) throw jsonTooDeep()
  return parseJson(raw) ?? { invalid: true }
}

/**
 * The parsed body, refusing one that is not JSON: the upstream might read it in a way this
 * gateway did not check (Python's json reads UTF-16 and NaN).
 */
export async function requireRequestJson(
  ctx: GatewayContext,
  limits: JsonBodyLimits,
): Promise<unknown> {
  const json = await readRequestJson(ctx, limits)
  if (json === undefined) return undefined
  if ('invalid' in json) {
    throw new GatewayError('BAD_REQUEST', 'Request body must be valid UTF-8 JSON', {
      reason: 'surfaces.invalid_json',
    })
  }
  return json.value
}

/** Forwards `value` instead of the client's body. */
export function replaceRequestJson(ctx: GatewayContext, value: unknown): void {
  const contentType = ctx.state.upstreamBody?.contentType
  ctx.state.upstreamBody = {
    body: Buffer.from(JSON.stringify(value)),
    ...(contentType === undefined ? {} : { contentType }),
  }
}
