import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { GatewayError } from '../errors.js'
import type { PlannedBody } from '../upstream/forward-plan.js'
import type { FieldPin, ObservedFields } from './field-pin.js'
import { pinJsonMembers } from './json-members.js'
import { rewriteMultipart } from './multipart-rewriter.js'
import { readBoundedBody } from '../inbound/request-body.js'
import { bodyKind } from './body-kind.js'
import { rewriteFieldList } from './url-encoded-fields.js'

/** Starlette's defaults allow 1000 fields and 1000 files. */
export const MAX_MULTIPART_PARTS = 2_000

export interface BodyPins {
  /** Pins for url-encoded and multipart forms. */
  readonly form: readonly FieldPin[]
  readonly json: readonly FieldPin[]
  /** Field names whose client values the caller needs (`session_id`, `user_id`). */
  readonly observed: readonly string[]
  /** Parse the whole body before answering, even a multipart one (a gate needs its fields). */
  readonly inspect: boolean
}

export interface PinnedBody {
  /** Set whenever the client stream was consumed, changed or not. */
  readonly body?: PlannedBody
  readonly observed: ObservedFields
}

const NOTHING: PinnedBody = { observed: new Map() }

/**
 * Applies the pins to a request body as the upstream will parse it (ISO-2). Reads a body
 * only when something may change or must be inspected; other bodies stream through untouched.
 */
export async function pinBody(
  stream: Readable,
  headers: IncomingHttpHeaders,
  pins: BodyPins,
  maxBytes: number,
): Promise<PinnedBody> {
  const kind = bodyKind(headers)
  const declared = headers['content-length']
  switch (kind) {
    case 'json': {
      if (pins.json.length === 0 && !pins.inspect) return NOTHING
      const raw = await readBoundedBody(stream, maxBytes, declared)
      const result = pinJsonMembers(raw, pins.json, pins.observed)
      if (result.kind === 'not-utf8') {
        throw new GatewayError('BAD_REQUEST', 'JSON body must be UTF-8', {
          reason: 'identity.json_encoding',
        })
      }
      if (result.kind !== 'object')
        return { body: { content: raw, contentType: undefined }, observed: NOTHING.observed }
      return { body: { content: result.body, contentType: undefined }, observed: result.observed }
    }
    case 'urlencoded': {
      if (pins.form.length === 0 && !pins.inspect) return NOTHING
      const raw = await readBoundedBody(stream, maxBytes, declared)
      const result = rewriteFieldList(raw.toString('latin1'), 'form', pins.form, pins.observed)
      const body = result.changed ? Buffer.from(result.text, 'latin1') : raw
      return { body: { content: body, contentType: undefined }, observed: result.observed }
    }
    case 'multipart': {
      if (pins.form.length === 0 && !pins.inspect) return NOTHING
      const rewrite = rewriteMultipart(stream, headers['content-type'] ?? '', {
        pins: pins.form,
        observed: pins.observed,
        maxFieldBytes: maxBytes,
        maxParts: MAX_MULTIPART_PARTS,
      })
      const contentType = rewrite.contentType
      if (!pins.inspect)
        return { body: { content: rewrite.body, contentType }, observed: NOTHING.observed }
      try {
        const [body, observed] = await Promise.all([
          readBoundedBody(rewrite.body, maxBytes),
          rewrite.done,
        ])
        return { body: { content: body, contentType }, observed }
      } catch (error) {
        rewrite.body.destroy()
        throw rewriterFailure(error)
      }
    }
    case 'none':
    case 'other':
      return NOTHING
  }
}

/** Reading the rewriter's output fails with its own error wrapped; the client gets the original. */
function rewriterFailure(error: unknown): unknown {
  const wrapped = error instanceof GatewayError && error.reason === 'body.unreadable'
  return wrapped && error.cause instanceof GatewayError ? error.cause : error
}
