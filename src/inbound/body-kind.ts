import type { IncomingHttpHeaders } from 'node:http'
import { hasBody } from './request-body.js'

/** How the upstream (FastAPI/Starlette) will read a request body. */
export type BodyKind = 'none' | 'json' | 'urlencoded' | 'multipart' | 'other'

// Python's str.strip() within latin1 (header values are latin1): more than JavaScript's trim().
const PYTHON_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0,
])

function pythonStrip(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && PYTHON_SPACE.has(text.charCodeAt(start))) start++
  while (end > start && PYTHON_SPACE.has(text.charCodeAt(end - 1))) end--
  return text.slice(start, end)
}

/**
 * Classifies the body as liberally as the upstream parses it: FastAPI reads a body without a
 * Content-Type as JSON, and `application/*+json` as JSON; Starlette matches the form types
 * case-insensitively. Missing a body the upstream reads would leave it unpinned.
 */
export function bodyKind(headers: IncomingHttpHeaders): BodyKind {
  return hasBody(headers) ? mediaKind(headers['content-type']) : 'none'
}

/** The kind of a body that is present, by its Content-Type. */
export function mediaKind(contentType: string | undefined): Exclude<BodyKind, 'none'> {
  if (contentType === undefined || contentType === '') return 'json'
  const semicolon = contentType.indexOf(';')
  const media = pythonStrip(
    semicolon === -1 ? contentType : contentType.slice(0, semicolon),
  ).toLowerCase()
  if (media === 'application/x-www-form-urlencoded') return 'urlencoded'
  if (media === 'multipart/form-data') return 'multipart'
  const slash = media.indexOf('/')
  if (slash === -1 || media.indexOf('/', slash + 1) !== -1) return 'other'
  const subtype = media.slice(slash + 1)
  return media.slice(0, slash) === 'application' &&
    (subtype === 'json' || subtype.endsWith('+json'))
    ? 'json'
    : 'other'
}
