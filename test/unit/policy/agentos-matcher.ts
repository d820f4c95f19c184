/**
 * An independent model of AgentOS 2.9.0's route → scope lookup (ROUTE-2), used only to
 * compare outcomes: Python `fnmatch` semantics and the exact-then-first-match dict scan.
 */

/** Python's `fnmatch.translate`: `*` any run (`/` too), `?` one character, `[...]` a class. */
export function fnmatchToRegExp(pattern: string): RegExp {
  let source = ''
  let i = 0
  while (i < pattern.length) {
    const c = pattern.charAt(i)
    i += 1
    if (c === '*') {
      if (!source.endsWith('[\\s\\S]*')) source += '[\\s\\S]*'
    } else if (c === '?') {
      source += '[\\s\\S]'
    } else if (c === '[') {
      let j = i
      if (pattern.charAt(j) === '!') j += 1
      if (pattern.charAt(j) === ']') j += 1
      while (j < pattern.length && pattern.charAt(j) !== ']') j += 1
      if (j >= pattern.length) {
        source += '\\['
      } else {
        let body = pattern.slice(i, j).replaceAll('\\', '\\\\')
        i = j + 1
        if (body.startsWith('!')) body = `^${body.slice(1)}`
        else if (body.startsWith('^') || body.startsWith('[')) body = `\\${body}`
        source += body === '' ? '(?!)' : body === '^' ? '[\\s\\S]' : `[${body}]`
      }
    } else {
      source += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
    }
  }
  return new RegExp(`^(?:${source})$`)
}

export function fnmatch(name: string, pattern: string): boolean {
  return fnmatchToRegExp(pattern).test(name)
}

/** `get_default_scope_mappings()` then `dict.update(custom)`: overrides stay in place. */
export function agentosMappings(
  entries: readonly (readonly [string, string, readonly string[]])[],
  custom: Readonly<Record<string, readonly string[]>> = {},
): Map<string, readonly string[]> {
  const table = new Map<string, readonly string[]>()
  for (const [method, pattern, scopes] of entries) table.set(`${method} ${pattern}`, scopes)
  for (const [key, scopes] of Object.entries(custom)) table.set(key, scopes)
  return table
}

/** `get_required_scopes_for_route`: exact key, else the first fnmatch in order, else []. */
export function agentosRequiredScopes(
  table: ReadonlyMap<string, readonly string[]>,
  method: string,
  path: string,
): readonly string[] {
  const exact = table.get(`${method} ${path}`)
  if (exact !== undefined) return exact
  for (const [key, scopes] of table) {
    const space = key.indexOf(' ')
    if (key.slice(0, space) !== method) continue
    const pattern = key.slice(space + 1).replace(/\{[^}]+\}/g, '*')
    if (fnmatch(path, pattern)) return scopes
  }
  return []
}
