/** Splits a request-target into the path and query the way uvicorn + Starlette do. */

export interface RequestTarget {
  /** percent-decoded once, like Python's urllib.parse.unquote */
  path: string
  query: Record<string, string[]>
}

const HEX_PAIR = /^[0-9a-fA-F]{2}$/

/** Python's unquote: valid %XX escapes become bytes, the result is read as UTF-8 with replacement. */
export function unquote(text: string): string {
  if (!text.includes('%')) return text
  const bytes: number[] = []
  for (let i = 0; i < text.length;) {
    const pair = text.slice(i + 1, i + 3)
    if (text[i] === '%' && HEX_PAIR.test(pair)) {
      bytes.push(Number.parseInt(pair, 16))
      i += 3
      continue
    }
    const codePoint = text.codePointAt(i) ?? 0
    const char = String.fromCodePoint(codePoint)
    bytes.push(...Buffer.from(char, 'utf8'))
    i += char.length
  }
  return Buffer.from(bytes).toString('utf8')
}

/** AgentOS's TrailingSlashMiddleware: strip every trailing slash, unless nothing would be left. */
export function stripTrailingSlashes(path: string): string {
  if (path === '/' || !path.endsWith('/')) return path
  const stripped = path.replace(/\/+$/, '')
  return stripped === '' ? path : stripped
}

export function parseQuery(search: string): Record<string, string[]> {
  const query: Record<string, string[]> = {}
  for (const [key, value] of new URLSearchParams(search)) {
    ;(query[key] ??= []).push(value)
  }
  return query
}

export function parseTarget(rawUrl: string): RequestTarget {
  let target = rawUrl
  // absolute-form (as sent to proxies): keep only the path and query
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(target)
  if (absolute) target = target.slice(absolute[0].length) || '/'
  const hash = target.indexOf('#')
  if (hash >= 0) target = target.slice(0, hash)
  const question = target.indexOf('?')
  const rawPath = question >= 0 ? target.slice(0, question) : target
  const search = question >= 0 ? target.slice(question + 1) : ''
  return { path: unquote(rawPath), query: parseQuery(search) }
}
