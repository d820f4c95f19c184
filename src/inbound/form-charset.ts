import { GatewayError } from '../errors.js'

/**
 * The charset Starlette's `MultiPartParser` reads a form's text fields (and part names) with:
 * the request Content-Type's `charset` parameter, UTF-8 when there is none; a part's own
 * Content-Type is ignored. A value that does not decode is read as latin-1 instead
 * (`_user_safe_decode`), so latin-1 reads every byte and ASCII reads as latin-1 does.
 */
export type FormCharset = 'utf-8' | 'latin-1'

// Python's codec names after `encodings.normalize_encoding` (lower case, punctuation as `_`).
const UTF8_NAMES = new Set(['utf_8', 'utf8', 'u8', 'utf', 'cp65001'])
const LATIN1_NAMES = new Set([
  'latin_1',
  'latin1',
  'latin',
  'l1',
  'iso8859_1',
  'iso_8859_1',
  'iso8859',
  '8859',
  'cp819',
  'ibm819',
  'iso_ir_100',
  'csisolatin1',
  'ascii',
  'us_ascii',
  'us',
  '646',
  'csascii',
  'iso646_us',
])

/** The `charset` parameter of a multipart Content-Type; undefined when there is none. */
export function multipartCharset(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1]
}

export function unsupportedCharset(charset: string): GatewayError {
  return new GatewayError('BAD_REQUEST', `Unsupported multipart charset: ${charset}`, {
    reason: 'identity.multipart_charset',
  })
}

/**
 * How the upstream reads the text of a multipart body with this Content-Type; 400 for a charset
 * the gateway does not read exactly as Python does (the rewrite declares the charset it read
 * with, so every reading the gateway makes is also the upstream's).
 */
export function formCharset(contentType: string): FormCharset {
  const declared = multipartCharset(contentType)
  if (declared === undefined) return 'utf-8'
  const name = declared
    .toLowerCase()
    .replace(/[^0-9a-z.]+/g, '_')
    .replace(/^_+|_+$/g, '')
  if (UTF8_NAMES.has(name)) return 'utf-8'
  if (LATIN1_NAMES.has(name)) return 'latin-1'
  throw unsupportedCharset(declared)
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** A text field's bytes as Starlette reads them (`_user_safe_decode`). */
export function readFieldText(bytes: Buffer, charset: FormCharset): string {
  if (charset === 'utf-8') {
    try {
      return STRICT_UTF8.decode(bytes)
    } catch {
      // Not UTF-8: read as latin-1, as Starlette does.
    }
  }
  return bytes.toString('latin1')
}

/**
 * A value a step decided, as the bytes the upstream reads back as that value; 400 when the
 * form's charset cannot carry it (a character beyond latin-1, a lone surrogate in UTF-8).
 */
export function fieldTextBytes(text: string, charset: FormCharset): Buffer {
  const bytes = Buffer.from(text, charset === 'utf-8' ? 'utf8' : 'latin1')
  if (bytes.toString(charset === 'utf-8' ? 'utf8' : 'latin1') !== text) {
    throw unsupportedCharset(charset)
  }
  return bytes
}
