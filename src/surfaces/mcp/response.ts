import type { BufferedResponse } from '../../upstream/upstream-client.js'
import { parseJson } from '../common/json.js'
import type { JsonObject } from '../common/json.js'

/** A header of an upstream answer, its first value when repeated; '' when absent. */
export function responseHeader(response: BufferedResponse, name: string): string {
  const value = response.headers[name]
  return (Array.isArray(value) ? value[0] : value) ?? ''
}

function withBody(response: BufferedResponse, body: string, contentType?: string) {
  const headers = { ...response.headers }
  delete headers['content-length']
  if (contentType !== undefined) headers['content-type'] = contentType
  return { ...response, headers, body: Buffer.from(body) }
}

/**
 * Adds the gateway's own answers (tool-error results) to the upstream's answer to the rest of a
 * batch: appended to a JSON array (after the upstream's responses; JSON-RPC batches are
 * unordered), appended as `message` events to an event stream, or returned alone when the
 * upstream had nothing to say (202). An answer that cannot be extended (an error status, an
 * encoded or unknown body) is returned as it is.
 */
export function mergeLocalErrors(
  response: BufferedResponse,
  errors: readonly JsonObject[],
): BufferedResponse {
  if (errors.length === 0) return response
  if (response.status === 202 || (response.status === 200 && response.body.length === 0)) {
    return { ...withBody(response, JSON.stringify(errors), 'application/json'), status: 200 }
  }
  if (response.status !== 200 || responseHeader(response, 'content-encoding') !== '')
    return response
  const type = responseHeader(response, 'content-type').toLowerCase()
  if (type.startsWith('text/event-stream')) {
    const text = response.body.toString('utf8')
    // The upstream's line end (sse-starlette writes CRLF) ends our events too.
    const eol = /\r\n/.test(text) ? '\r\n' : '\n'
    const separator = text.endsWith(`${eol}${eol}`) ? '' : text.endsWith(eol) ? eol : eol + eol
    const events = errors.map(
      (error) => `event: message${eol}data: ${JSON.stringify(error)}${eol}${eol}`,
    )
    return withBody(response, `${text}${separator}${events.join('')}`)
  }
  if (!type.startsWith('application/json')) return response
  const parsed = parseJson(response.body)
  if (parsed === undefined) return response
  const upstream: readonly unknown[] = Array.isArray(parsed.value) ? parsed.value : [parsed.value]
  return withBody(response, JSON.stringify([...upstream, ...errors]))
}
