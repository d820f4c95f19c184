import { splitTemplate, TemplateError, type Piece, type Token } from './lex.js'

/** An operand: a literal, `.a.b`, `$x.a`, a function name, or a parenthesised pipeline. */
export type Operand =
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'field'; readonly path: readonly string[] }
  | { readonly kind: 'variable'; readonly name: string; readonly path: readonly string[] }
  | { readonly kind: 'function'; readonly name: string }
  | { readonly kind: 'pipeline'; readonly pipeline: Pipeline }

export type Command = readonly Operand[]

export interface Pipeline {
  /** `$a := …` declares, `$a = …` assigns; `range $i, $v := …` declares two. */
  readonly variables: readonly string[]
  readonly assign: boolean
  readonly commands: readonly Command[]
  readonly where: string
}

export type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'output'; readonly pipeline: Pipeline }
  | {
      readonly kind: 'if'
      readonly branches: readonly { readonly test: Pipeline; readonly body: readonly Node[] }[]
      readonly otherwise: readonly Node[]
    }
  | ({ readonly kind: 'with' } & Scoped)
  | ({ readonly kind: 'range' } & Scoped)
  | { readonly kind: 'template'; readonly name: string; readonly pipeline: Pipeline | undefined }

/** `with` and `range`: a pipeline, a body, and an `else` body. */
export interface Scoped {
  readonly pipeline: Pipeline
  readonly body: readonly Node[]
  readonly otherwise: readonly Node[]
}

export interface ParsedTemplate {
  readonly body: readonly Node[]
  readonly defines: ReadonlyMap<string, readonly Node[]>
}

const KEYWORDS = new Set(['if', 'else', 'end', 'with', 'range', 'define', 'template'])

/** Parses one template file: its body and the named templates it defines. */
export function parseTemplate(source: string, name: string): ParsedTemplate {
  const pieces = splitTemplate(source, name)
  const defines = new Map<string, readonly Node[]>()
  const parser = new Parser(pieces, defines)
  return { body: parser.nodes(new Set()), defines }
}

class Parser {
  #index = 0
  /** The action that stopped the last `nodes` call (an `else` or `end`). */
  pending: Extract<Piece, { kind: 'action' }> | undefined
  pendingWord = ''
  readonly #pieces: readonly Piece[]
  readonly #defines: Map<string, readonly Node[]>

  constructor(pieces: readonly Piece[], defines: Map<string, readonly Node[]>) {
    this.#pieces = pieces
    this.#defines = defines
  }

  /** Nodes until an action whose first word is in `stops` (left in `pending`) or the end. */
  nodes(stops: ReadonlySet<string>): Node[] {
    const nodes: Node[] = []
    this.pending = undefined
    while (this.#index < this.#pieces.length) {
      const piece = this.#pieces[this.#index++] as Piece
      if (piece.kind === 'text') {
        nodes.push({ kind: 'text', text: piece.text })
        continue
      }
      const first = piece.tokens[0]
      const word = first?.kind === 'ident' && KEYWORDS.has(first.value) ? first.value : ''
      if (word === 'else' || word === 'end') {
        if (!stops.has(word)) throw new TemplateError(`${piece.where}: unexpected {{${word}}}`)
        this.pending = piece
        this.pendingWord = word
        return nodes
      }
      const node = this.#action(piece, word)
      if (node !== undefined) nodes.push(node)
    }
    if (stops.size > 0) throw new TemplateError('unexpected end of template: missing {{end}}')
    return nodes
  }

  #action(piece: Extract<Piece, { kind: 'action' }>, word: string): Node | undefined {
    const rest = piece.tokens.slice(1)
    switch (word) {
      case 'if':
        return this.#if(rest, piece.where)
      case 'with':
      case 'range': {
        const pipeline = parsePipeline(rest, piece.where)
        const body = this.nodes(new Set(['else', 'end']))
        const otherwise = this.#else(piece.where)
        const scoped: Scoped = { pipeline, body, otherwise }
        return word === 'with' ? { kind: 'with', ...scoped } : { kind: 'range', ...scoped }
      }
      case 'define': {
        const name = rest[0]
        if (name?.kind !== 'string' || rest.length !== 1)
          throw new TemplateError(`${piece.where}: {{define}} needs one string`)
        const body = this.nodes(new Set(['end']))
        this.#expectEnd(piece.where)
        this.#defines.set(name.value, body)
        return undefined
      }
      case 'template': {
        const name = rest[0]
        if (name?.kind !== 'string') throw new TemplateError(`${piece.where}: {{template}} name`)
        const args = rest.slice(1)
        return {
          kind: 'template',
          name: name.value,
          pipeline: args.length === 0 ? undefined : parsePipeline(args, piece.where),
        }
      }
      default:
        return { kind: 'output', pipeline: parsePipeline(piece.tokens, piece.where) }
    }
  }

  #if(tokens: readonly Token[], where: string): Node {
    const branches = [{ test: parsePipeline(tokens, where), body: [] as Node[] }]
    let otherwise: Node[] = []
    for (;;) {
      ;(branches.at(-1) as { body: Node[] }).body = this.nodes(new Set(['else', 'end']))
      const stop = this.pending as Extract<Piece, { kind: 'action' }>
      if (this.pendingWord === 'end') break
      const after = stop.tokens.slice(1)
      if (after[0]?.kind === 'ident' && after[0].value === 'if') {
        branches.push({ test: parsePipeline(after.slice(1), stop.where), body: [] })
        continue
      }
      otherwise = this.nodes(new Set(['end']))
      this.#expectEnd(where)
      break
    }
    return { kind: 'if', branches, otherwise }
  }

  #else(where: string): Node[] {
    if (this.pendingWord === 'end') return []
    if ((this.pending?.tokens.length ?? 0) > 1)
      throw new TemplateError(`${where}: only {{else}} is supported after with/range`)
    const nodes = this.nodes(new Set(['end']))
    this.#expectEnd(where)
    return nodes
  }

  #expectEnd(where: string): void {
    if (this.pendingWord !== 'end') throw new TemplateError(`${where}: missing {{end}}`)
  }
}

/** `[$a[, $b] :=|=] command | command …` */
export function parsePipeline(tokens: readonly Token[], where: string): Pipeline {
  let rest = tokens
  const variables: string[] = []
  let assign = false
  const declaration = tokens.findIndex(
    (token) => token.kind === 'punct' && (token.value === ':=' || token.value === '='),
  )
  if (declaration !== -1) {
    for (const token of tokens.slice(0, declaration)) {
      if (token.kind === 'variable' && token.path.length === 0) variables.push(token.name)
      else if (!(token.kind === 'punct' && token.value === ',')) {
        throw new TemplateError(`${where}: bad variable declaration`)
      }
    }
    assign = (tokens[declaration] as { value: string }).value === '='
    rest = tokens.slice(declaration + 1)
  }
  const [commands, used] = parseCommands(rest, 0, where)
  if (used !== rest.length) throw new TemplateError(`${where}: unexpected ")"`)
  if (commands.length === 0) throw new TemplateError(`${where}: empty pipeline`)
  return { variables, assign, commands, where }
}

function parseCommands(
  tokens: readonly Token[],
  start: number,
  where: string,
): [Command[], number] {
  const commands: Command[] = []
  let command: Operand[] = []
  let index = start
  while (index < tokens.length) {
    const token = tokens[index] as Token
    if (token.kind === 'punct' && token.value === ')') break
    index++
    if (token.kind === 'punct' && token.value === '|') {
      if (command.length === 0) throw new TemplateError(`${where}: empty command before "|"`)
      commands.push(command)
      command = []
    } else if (token.kind === 'punct' && token.value === '(') {
      const [inner, end] = parseCommands(tokens, index, where)
      if (!(tokens[end]?.kind === 'punct' && (tokens[end] as { value: string }).value === ')'))
        throw new TemplateError(`${where}: unclosed "("`)
      command.push({
        kind: 'pipeline',
        pipeline: { variables: [], assign: false, commands: inner, where },
      })
      index = end + 1
    } else {
      command.push(operand(token, where))
    }
  }
  if (command.length > 0) commands.push(command)
  return [commands, index]
}

function operand(token: Token, where: string): Operand {
  switch (token.kind) {
    case 'string':
      return { kind: 'literal', value: token.value }
    case 'number':
      return { kind: 'literal', value: token.integer ? BigInt(token.value) : token.value }
    case 'field':
      return { kind: 'field', path: token.path }
    case 'variable':
      return { kind: 'variable', name: token.name, path: token.path }
    case 'ident':
      if (token.value === 'true' || token.value === 'false')
        return { kind: 'literal', value: token.value === 'true' }
      if (token.value === 'nil') return { kind: 'literal', value: null }
      return { kind: 'function', name: token.value }
    case 'punct':
      throw new TemplateError(`${where}: unexpected "${token.value}"`)
  }
}
