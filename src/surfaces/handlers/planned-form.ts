import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import { GatewayError } from '../../errors.js'
import type { StageRequest } from '../../http/stage.js'
import { bodyKind } from '../../identity/body-kind.js'
import { MAX_MULTIPART_PARTS } from '../../identity/body-pinning.js'
import type { FieldPin } from '../../identity/field-pin.js'
import { multipartCharset } from '../../identity/multipart-parts.js'
import { rewriteMultipart, type FieldScreen } from '../../identity/multipart-rewriter.js'
import { rewriteFieldList } from '../../identity/url-encoded-fields.js'
import { readBoundedBody } from '../../inbound/request-body.js'
import { withBody, type ForwardPlan, type PlannedBody } from '../../upstream/forward-plan.js'

/** Charsets whose text fields read the same, byte for byte, in the gateway and in Starlette. */
const SAME_READING = new Set(['utf-8', 'utf8'])

/**
 * Puts the form (url-encoded or multipart) that the plan so far forwards, the client's or an
 * earlier stage's rewrite of it, through `screen`: every value of a screened field is decided on
 * before the upstream can act on it, and written as the screen returns it. A url-encoded form is
 * read whole (`maxBytes` at most) and decided on before anything is sent; a multipart form
 * streams, files included, each screened field held until its screen resolves, and a screen that
 * rejects fails the body before its end, so the upstream never receives a complete request. A
 * body of another kind is left as it is: the run routes read forms only.
 */
export async function screenForm(
  request: StageRequest,
  plan: ForwardPlan,
  screen: FieldScreen,
  maxBytes: number,
): Promise<ForwardPlan> {
  const source = plannedSource(request, plan)
  switch (bodyKind(source.headers)) {
    case 'urlencoded':
      return screenUrlEncoded(source, plan, screen, maxBytes)
    case 'multipart': {
      const contentType = source.headers['content-type'] ?? ''
      const charset = multipartCharset(contentType)
      if (charset !== undefined && !SAME_READING.has(charset.toLowerCase())) {
        throw new GatewayError('BAD_REQUEST', `Unsupported multipart charset: ${charset}`, {
          reason: 'handlers.multipart_charset',
        })
      }
      const rewrite = rewriteMultipart(source.stream, contentType, {
        pins: [],
        observed: [],
        maxFieldBytes: maxBytes,
        maxParts: MAX_MULTIPART_PARTS,
        screen,
      })
      return withBody(plan, { content: rewrite.body, contentType: rewrite.contentType })
    }
    case 'json':
    case 'none':
    case 'other':
      return plan
  }
}

/**
 * Every screened value is decided on; a field whose screen changes any of its copies is sent
 * once, as the screen returns the copy the upstream reads (the last).
 */
async function screenUrlEncoded(
  source: BodySource,
  plan: ForwardPlan,
  screen: FieldScreen,
  maxBytes: number,
): Promise<ForwardPlan> {
  const raw = await readBoundedBody(source.stream, maxBytes, source.headers['content-length'])
  // latin1 keeps every byte; the field lists decode names and values as Python does.
  const text = raw.toString('latin1')
  const names = [...screen.names]
  const { observed } = rewriteFieldList(text, 'form', [], names)
  const pins: FieldPin[] = []
  for (const name of names) {
    let changed = false
    let last: string | undefined
    for (const value of observed.get(name) ?? []) {
      const sent = String(value)
      last = await screen.screen(name, sent)
      changed ||= last !== sent
    }
    if (changed && last !== undefined) pins.push({ name, value: last, always: false })
  }
  const content =
    pins.length === 0 ? raw : Buffer.from(rewriteFieldList(text, 'form', pins, []).text, 'latin1')
  return withBody(plan, { content, contentType: plan.body?.contentType })
}

interface BodySource {
  readonly stream: Readable
  readonly headers: IncomingHttpHeaders
}

/** The body the plan forwards so far, with the headers that describe it. */
function plannedSource(request: StageRequest, plan: ForwardPlan): BodySource {
  const client = request.inbound.headers
  const body = plan.body
  if (body === undefined) return { stream: request.body, headers: client }
  const {
    'content-length': _length,
    'transfer-encoding': _encoding,
    'content-type': clientType,
    ...rest
  } = client
  const headers: IncomingHttpHeaders = { ...rest, 'content-type': body.contentType ?? clientType }
  if (Buffer.isBuffer(body.content)) headers['content-length'] = String(body.content.length)
  else headers['transfer-encoding'] = 'chunked'
  return { stream: bodyStream(body), headers }
}

function bodyStream(body: PlannedBody): Readable {
  return Buffer.isBuffer(body.content) ? Readable.from([body.content]) : body.content
}
