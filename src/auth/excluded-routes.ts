/** AgentOS's routes that bypass all authentication (AUTH-4). */
export const DEFAULT_EXCLUDED_ROUTES: readonly string[] = [
  '/',
  '/health',
  '/info',
  '/docs',
  '/redoc',
  '/openapi.json',
  '/docs/oauth2-redirect',
]

/**
 * Canonical paths that skip authentication. A pattern is a path whose segments are literals, `*`
 * (exactly one segment) or a final `**` (one or more segments): `/slack/**` covers everything
 * under `/slack` but not `/slack` itself, as AgentOS's `<prefix>/*` does.
 */
export class ExcludedRoutes {
  readonly #exact = new Set<string>()
  readonly #patterns: (readonly string[])[] = []

  constructor(patterns: readonly string[]) {
    for (const pattern of patterns) {
      const trimmed = pattern.length > 1 ? pattern.replace(/\/+$/, '') : pattern
      if (trimmed.includes('*')) this.#patterns.push(trimmed.split('/').slice(1))
      else this.#exact.add(trimmed)
    }
  }

  has(path: string): boolean {
    if (this.#exact.has(path)) return true
    if (this.#patterns.length === 0) return false
    const segments = path.split('/').slice(1)
    return this.#patterns.some((pattern) => matches(pattern, segments))
  }
}

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  for (let index = 0; index < pattern.length; index++) {
    const part = pattern[index]
    if (part === '**' && index === pattern.length - 1) return segments.length > index
    const segment = segments[index]
    if (segment === undefined) return false
    if (part !== '*' && part !== segment) return false
  }
  return segments.length === pattern.length
}
