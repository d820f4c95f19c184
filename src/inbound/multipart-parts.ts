import type { FormCharset } from './form-charset.js'

/** Serialization of the parts the multipart rewriter writes. */

export interface PartHead {
  readonly name: string
  /** Present for file parts. */
  readonly filename?: string | undefined
  /** Written for file parts (and octet-stream fields); text fields need none. */
  readonly type?: string | undefined
  readonly encoding?: string | undefined
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Text back to the bytes it came from. The parser reads undeclared parts (and plain header
 * parameters) as latin1, so such text maps back byte for byte; text beyond latin1 came from a
 * declared charset or an RFC 5987 parameter and is written as UTF-8, which Starlette decodes.
 */
export function encodePart(text: string): Buffer {
  return Buffer.from(text, /[\u0100-\uffff]/.test(text) ? 'utf8' : 'latin1')
}

/** A quoted-string parameter as Python's email parser unquotes it; CR and LF cannot be quoted. */
function quoted(value: string): Buffer {
  const escaped = value
    .replaceAll('\\', '\\\\')
    .replaceAll('"', '\\"')
    .replaceAll('\r', '%0D')
    .replaceAll('\n', '%0A')
  return Buffer.concat([Buffer.from('"'), encodePart(escaped), Buffer.from('"')])
}

export function partHeader(boundary: string, head: PartHead): Buffer {
  const pieces = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=`),
    quoted(head.name),
  ]
  if (head.filename !== undefined) pieces.push(Buffer.from('; filename='), quoted(head.filename))
  const lines: string[] = []
  if (head.type !== undefined && MEDIA_TYPE.test(head.type))
    lines.push(`Content-Type: ${head.type}`)
  if (head.encoding !== undefined && head.encoding !== '7bit' && TOKEN.test(head.encoding)) {
    lines.push(`Content-Transfer-Encoding: ${head.encoding}`)
  }
  pieces.push(Buffer.from(lines.map((line) => `\r\n${line}`).join('') + '\r\n\r\n', 'latin1'))
  return Buffer.concat(pieces)
}

/**
 * The rewritten body's Content-Type: it declares the charset the gateway read the text with, so
 * the upstream reads every unchanged field's bytes as the gateway did (UTF-8 is the default).
 */
export function outputContentType(boundary: string, charset: FormCharset): string {
  const declared = charset === 'utf-8' ? '' : `; charset=${charset}`
  return `multipart/form-data; boundary=${boundary}${declared}`
}
