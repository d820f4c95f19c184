import { GatewayError } from '../errors.js'
import type { ClientBody } from '../inbound/client-body.js'
import type { ParsedForm } from '../inbound/multipart-parser.js'
import { observe, type FieldPin, type ObservedFields } from './field-pin.js'
import { pinJsonMembers } from './json-members.js'
import { rewriteFieldList } from './url-encoded-fields.js'

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
 * something may change or must be inspected; other bodies stream through untouched. A multipart
 * form is re-serialized (even with nothing to pin, when inspected) so that the upstream reads
 * exactly the parts the gateway read; its pins are applied, with any later step's edits, in the
 * one rewrite that forwards it.
 */
export function pinBody(
  body: ClientBody,
  pins: BodyPins,
): ObservedFields | Promise<ObservedFields> {
  // At once when nothing is read: most requests have no body, or none these pins look into.
  switch (body.kind) {
    case 'json':
      return pins.json.length === 0 && !pins.inspect ? NOTHING_OBSERVED : pinJson(body, pins)
    case 'urlencoded':
      return pins.form.length === 0 && !pins.inspect ? NOTHING_OBSERVED : pinUrlEncoded(body, pins)
    case 'multipart':
      if (pins.form.length === 0 && !pins.inspect) return NOTHING_OBSERVED
      if (!pins.inspect) {
        body.editForm({ set: pins.form })
        return NOTHING_OBSERVED
      }
      return pinInspectedForm(body, pins)
    case 'none':
    case 'other':
      return NOTHING_OBSERVED
  }
}

async function pinJson(body: ClientBody, pins: BodyPins): Promise<ObservedFields> {
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

async function pinUrlEncoded(body: ClientBody, pins: BodyPins): Promise<ObservedFields> {
  const raw = await body.bytes()
  const result = rewriteFieldList(raw.toString('latin1'), 'form', pins.form, pins.observed)
  if (result.changed) body.setBytes(Buffer.from(result.text, 'latin1'))
  return result.observed
}

async function pinInspectedForm(body: ClientBody, pins: BodyPins): Promise<ObservedFields> {
  const form = await body.form()
  body.editForm({ set: pins.form })
  return observedIn(form, pins.observed)
}

/** The client's values of the `observed` text fields of a form. */
function observedIn(form: ParsedForm, observed: readonly string[]): ObservedFields {
  const seen = new Map<string, unknown[]>()
  for (const part of form.parts)
    if ('value' in part && observed.includes(part.name)) observe(seen, part.name, part.value.text)
  return seen
}
