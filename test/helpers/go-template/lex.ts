/**
 * Splits a Go template into text and actions, applying the `{{-` / `-}}` whitespace trimming,
 * and tokenizes the inside of each action. Only the subset the Helm chart uses is recognised;
 * anything else is an error naming the template and line, never a silent pass.
 */

export type Token =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number; readonly integer: boolean }
  | { readonly kind: 'ident'; readonly value: string }
  | { readonly kind: 'field'; readonly path: readonly string[] }
  | { readonly kind: 'variable'; readonly name: string; readonly path: readonly string[] }
  | { readonly kind: 'punct'; readonly value: '(' | ')' | '|' | ':=' | '=' | ',' }

export type Piece =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'action'; readonly tokens: readonly Token[]; readonly where: string }

export class TemplateError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TemplateError'
  }
}

const WHITESPACE = /[ \t\r\n]/

/** Text and actions in order; comments are dropped, trim markers applied to the neighbouring text. */
export function splitTemplate(source: string, name: string): Piece[] {
  const pieces: Piece[] = []
  let position = 0
  let trimNext = false
  while (position < source.length) {
    const open = source.indexOf('{{', position)
    let text = source.slice(position, open === -1 ? source.length : open)
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '')
    if (open === -1) {
      pieces.push({ kind: 'text', text })
      break
    }
    const trimLeft = source[open + 2] === '-' && WHITESPACE.test(source[open + 3] ?? '')
    if (trimLeft) text = text.replace(/[ \t\r\n]+$/, '')
    pieces.push({ kind: 'text', text })
    const bodyStart = open + (trimLeft ? 3 : 2)
    const close = findClose(source, bodyStart)
    if (close === -1) throw new TemplateError(`${name}:${lineOf(source, open)}: unclosed action`)
    const trimRight = source[close - 1] === '-' && WHITESPACE.test(source[close - 2] ?? '')
    const body = source.slice(bodyStart, trimRight ? close - 1 : close).trim()
    const where = `${name}:${lineOf(source, open)}`
    if (body.startsWith('/*')) {
      if (!body.endsWith('*/')) throw new TemplateError(`${where}: unclosed comment`)
    } else {
      pieces.push({ kind: 'action', tokens: tokenize(body, where), where })
    }
    trimNext = trimRight
    position = close + 2
  }
  return pieces.filter((piece) => piece.kind === 'action' || piece.text !== '')
}

/** The `}}` that ends the action starting at `from`, skipping string literals and comments. */
function findClose(source: string, from: number): number {
  let index = from
  while (index < source.length) {
    const char = source[index]
    if (source.startsWith('/*', index)) {
      const end = source.indexOf('*/', index + 2)
      if (end === -1) return -1
      index = end + 2
    } else if (char === '"' || char === '`') {
      index = skipString(source, index)
    } else if (source.startsWith('}}', index)) {
      return index
    } else {
      index++
    }
  }
  return -1
}

function skipString(source: string, start: number): number {
  const quote = source[start]
  let index = start + 1
  while (index < source.length && source[index] !== quote) {
    if (quote === '"' && source[index] === '\\') index++
    index++
  }
  return index + 1
}

function lineOf(source: string, index: number): number {
  return source.slice(0, index).split('\n').length
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/
const FIELD_CHAIN = /^(?:\.[A-Za-z_][A-Za-z0-9_]*)+/
const NUMBER = /^-?(?:\d+\.\d+|\d+)(?:[eE][-+]?\d+)?/

export function tokenize(body: string, where: string): Token[] {
  const tokens: Token[] = []
  let rest = body
  while (rest.length > 0) {
    const space = /^[ \t\r\n]+/.exec(rest)
    if (space !== null) {
      rest = rest.slice(space[0].length)
      continue
    }
    const char = rest[0] as string
    if (char === '"' || char === '`') {
      const end = skipString(rest, 0)
      if (end > rest.length) throw new TemplateError(`${where}: unterminated string`)
      const literal = rest.slice(0, end)
      tokens.push({
        kind: 'string',
        value: char === '`' ? literal.slice(1, -1) : (JSON.parse(literal) as string),
      })
      rest = rest.slice(end)
    } else if (rest.startsWith(':=')) {
      tokens.push({ kind: 'punct', value: ':=' })
      rest = rest.slice(2)
    } else if ('()|=,'.includes(char)) {
      tokens.push({ kind: 'punct', value: char as '(' | ')' | '|' | '=' | ',' })
      rest = rest.slice(1)
    } else if (char === '$') {
      const name = /^\$[A-Za-z0-9_]*/.exec(rest)?.[0] as string
      rest = rest.slice(name.length)
      const chain = FIELD_CHAIN.exec(rest)?.[0] ?? ''
      rest = rest.slice(chain.length)
      tokens.push({ kind: 'variable', name, path: splitChain(chain) })
    } else if (char === '.') {
      const chain = FIELD_CHAIN.exec(rest)?.[0] ?? '.'
      rest = rest.slice(chain.length)
      tokens.push({ kind: 'field', path: splitChain(chain) })
    } else if (NUMBER.test(rest)) {
      const text = NUMBER.exec(rest)?.[0] as string
      rest = rest.slice(text.length)
      tokens.push({ kind: 'number', value: Number(text), integer: /^-?\d+$/.test(text) })
    } else if (IDENT.test(rest)) {
      const name = IDENT.exec(rest)?.[0] as string
      rest = rest.slice(name.length)
      tokens.push({ kind: 'ident', value: name })
    } else {
      throw new TemplateError(`${where}: unexpected ${JSON.stringify(rest.slice(0, 10))}`)
    }
  }
  return tokens
}

function splitChain(chain: string): string[] {
  return chain === '.' || chain === '' ? [] : chain.slice(1).split('.')
}
