import { GatewayError } from '../errors.js'
import type { ClientBody } from '../inbound/client-body.js'
import type { FieldPin, ObservedFields } from './field-pin.js'
import { pinJsonMembers } from './json-members.js'
import { rewriteMultipart } from './multipart-rewriter.js'
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

const NOTHING_OBSERVED: ObservedFields = new Map()

/**
 * Applies the pins to a request body as the upstream will parse it (ISO-2), as edits of the
 * request's one body; returns the client's values of the observed fields. Reads a body only when
 * something may change or must be inspected; other bodies stream through untouched.
 */
export async function pinBody(body: ClientBody, pins: BodyPins): Promise<ObservedFields> {
  const maxBytes = body.limits.maxBytes
  switch (body.kind) {
    case 'json': {
      if (pins.json.length === 0 && !pins.inspect) return NOTHING_OBSERVED
      const result = pinJsonMembers(await body.bytes(), pins.json, pins.observed)
      if (result.kind === 'not-utf8') {
        throw new GatewayError('BAD_REQUEST', 'JSON body must be UTF-8', {
          reason: 'identity.json_encoding',
        })
      }
      if (result.kind !== 'object') return NOTHING_OBSERVED
      if (result.changed) body.setBytes(result.body)
      return result.observed
    }
    case 'urlencoded': {
      if (pins.form.length === 0 && !pins.inspect) return NOTHING_OBSERVED
      const raw = await body.bytes()
      const result = rewriteFieldList(raw.toString('latin1'), 'form', pins.form, pins.observed)
      if (result.changed) body.setBytes(Buffer.from(result.text, 'latin1'))
      return result.observed
    }
    case 'multipart': {
      if (pins.form.length === 0 && !pins.inspect) return NOTHING_OBSERVED
      let done: Promise<ObservedFields> = Promise.resolve(NOTHING_OBSERVED)
      const rewrite = body.pipeThrough((input, contentType) => {
        const rewritten = rewriteMultipart(input, contentType, {
          pins: pins.form,
          observed: pins.observed,
          maxFieldBytes: maxBytes,
          maxParts: MAX_MULTIPART_PARTS,
        })
        done = rewritten.done
        return rewritten
      })
      if (!pins.inspect) return NOTHING_OBSERVED
      try {
        const [, observed] = await Promise.all([body.bytes(), done])
        return observed
      } catch (error) {
        rewrite.body.destroy()
        throw rewriterFailure(error)
      }
    }
    case 'none':
    case 'other':
      return NOTHING_OBSERVED
  }
}

/** Reading the rewriter's output fails with its own error wrapped; the client gets the original. */
function rewriterFailure(error: unknown): unknown {
  const wrapped = error instanceof GatewayError && error.reason === 'body.unreadable'
  return wrapped && error.cause instanceof GatewayError ? error.cause : error
}
