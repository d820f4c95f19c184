import { FUNCTIONS } from './functions.js'
import type { Command, Node, Operand, Pipeline } from './parse.js'
import { ExecError, formatValue, isMap, truth, type GoValue } from './values.js'

/** Variables of one control structure; lookups walk outwards, as Go's do. */
class Scope {
  readonly #vars = new Map<string, GoValue>()
  readonly #parent: Scope | undefined

  constructor(parent?: Scope) {
    this.#parent = parent
  }

  declare(name: string, value: GoValue): void {
    this.#vars.set(name, value)
  }

  assign(name: string, value: GoValue): void {
    if (this.#vars.has(name)) this.#vars.set(name, value)
    else if (this.#parent !== undefined) this.#parent.assign(name, value)
    else throw new ExecError(`undefined variable: ${name}`)
  }

  get(name: string): GoValue {
    if (this.#vars.has(name)) return this.#vars.get(name)
    if (this.#parent !== undefined) return this.#parent.get(name)
    throw new ExecError(`undefined variable: ${name}`)
  }
}

const MAX_DEPTH = 100

/** Executes parsed templates against data, with named templates shared by all files. */
export class Evaluator {
  readonly #defines: ReadonlyMap<string, readonly Node[]>
  #depth = 0

  constructor(defines: ReadonlyMap<string, readonly Node[]>) {
    this.#defines = defines
  }

  /** Renders a body with `.` and `$` bound to `data`. */
  run(body: readonly Node[], data: GoValue): string {
    const scope = new Scope()
    scope.declare('$', data)
    return this.#nodes(body, data, scope)
  }

  /** `include` / `template`: a named template with `.` and `$` bound to `data`. */
  named(name: string, data: GoValue): string {
    const body = this.#defines.get(name)
    if (body === undefined) throw new ExecError(`no template "${name}"`)
    if (++this.#depth > MAX_DEPTH) throw new ExecError(`template "${name}" nested too deeply`)
    try {
      return this.run(body, data)
    } finally {
      this.#depth--
    }
  }

  #nodes(nodes: readonly Node[], dot: GoValue, scope: Scope): string {
    let out = ''
    for (const node of nodes) out += this.#node(node, dot, scope)
    return out
  }

  #node(node: Node, dot: GoValue, scope: Scope): string {
    switch (node.kind) {
      case 'text':
        return node.text
      case 'output': {
        const value = this.#pipeline(node.pipeline, dot, scope)
        return node.pipeline.variables.length > 0 ? '' : formatValue(value)
      }
      case 'if': {
        for (const branch of node.branches) {
          const inner = new Scope(scope)
          if (truth(this.#pipeline(branch.test, dot, inner)))
            return this.#nodes(branch.body, dot, inner)
        }
        return this.#nodes(node.otherwise, dot, new Scope(scope))
      }
      case 'with': {
        const inner = new Scope(scope)
        const value = this.#pipeline(node.pipeline, dot, inner)
        return truth(value)
          ? this.#nodes(node.body, value, inner)
          : this.#nodes(node.otherwise, dot, inner)
      }
      case 'range':
        return this.#range(node, dot, scope)
      case 'template':
        return this.named(
          node.name,
          node.pipeline === undefined ? null : this.#pipeline(node.pipeline, dot, scope),
        )
    }
  }

  #range(node: Extract<Node, { kind: 'range' }>, dot: GoValue, scope: Scope): string {
    const { variables } = node.pipeline
    const collection = this.#pipeline(
      { ...node.pipeline, variables: [], assign: false },
      dot,
      scope,
    )
    let entries: [GoValue, GoValue][]
    if (Array.isArray(collection)) entries = collection.map((item, i) => [BigInt(i), item])
    else if (isMap(collection))
      entries = Object.keys(collection)
        .sort()
        .map((key) => [key, collection[key]])
    else if (collection === null || collection === undefined) entries = []
    else
      throw new ExecError(
        `${node.pipeline.where}: range can't iterate over ${formatValue(collection)}`,
      )
    if (entries.length === 0) return this.#nodes(node.otherwise, dot, new Scope(scope))
    let out = ''
    for (const [key, item] of entries) {
      const inner = new Scope(scope)
      if (variables.length === 1) inner.declare(variables[0] as string, item)
      if (variables.length === 2) {
        inner.declare(variables[0] as string, key)
        inner.declare(variables[1] as string, item)
      }
      out += this.#nodes(node.body, item, inner)
    }
    return out
  }

  #pipeline(pipeline: Pipeline, dot: GoValue, scope: Scope): GoValue {
    let value: GoValue
    let piped = false
    try {
      for (const command of pipeline.commands) {
        value = this.#command(command, dot, scope, piped ? [value] : [])
        piped = true
      }
    } catch (error) {
      if (error instanceof ExecError && !error.message.startsWith(pipeline.where))
        throw new ExecError(`${pipeline.where}: ${error.message}`)
      throw error
    }
    for (const name of pipeline.variables) {
      if (pipeline.assign) scope.assign(name, value)
      else scope.declare(name, value)
    }
    return value
  }

  #command(command: Command, dot: GoValue, scope: Scope, piped: GoValue[]): GoValue {
    const [head, ...rest] = command as [Operand, ...Operand[]]
    const args = (): GoValue[] => [...rest.map((arg) => this.#operand(arg, dot, scope)), ...piped]
    if (head.kind === 'function') {
      if (head.name === 'and' || head.name === 'or')
        return this.#logic(head.name, rest, dot, scope, piped)
      if (head.name === 'include') {
        const [name, data] = args()
        if (typeof name !== 'string') throw new ExecError('include: the name must be a string')
        return this.named(name, data)
      }
      const fn = FUNCTIONS[head.name]
      if (fn === undefined) throw new ExecError(`function "${head.name}" not defined`)
      return fn(...args())
    }
    const value = this.#operand(head, dot, scope)
    if (typeof value === 'function') return (value as (...a: GoValue[]) => GoValue)(...args())
    if (rest.length > 0 || piped.length > 0)
      throw new ExecError(`can't give argument to non-function ${formatValue(value)}`)
    return value
  }

  /** `and` / `or` stop at the first operand that decides, and return it (Go 1.18+). */
  #logic(
    name: 'and' | 'or',
    operands: readonly Operand[],
    dot: GoValue,
    scope: Scope,
    piped: GoValue[],
  ): GoValue {
    const thunks = [
      ...operands.map((operand) => () => this.#operand(operand, dot, scope)),
      ...piped.map((value) => () => value),
    ]
    if (thunks.length < 2) throw new ExecError(`${name}: needs at least two arguments`)
    let value: GoValue
    for (const thunk of thunks) {
      value = thunk()
      if (truth(value) === (name === 'or')) return value
    }
    return value
  }

  #operand(operand: Operand, dot: GoValue, scope: Scope): GoValue {
    switch (operand.kind) {
      case 'literal':
        return operand.value
      case 'field':
        return walk(dot, operand.path, '.')
      case 'variable':
        return walk(scope.get(operand.name), operand.path, operand.name)
      case 'pipeline':
        return this.#pipeline(operand.pipeline, dot, scope)
      case 'function': {
        if (operand.name === 'and' || operand.name === 'or' || operand.name === 'include')
          throw new ExecError(`${operand.name} needs arguments`)
        const fn = FUNCTIONS[operand.name]
        if (fn === undefined) throw new ExecError(`function "${operand.name}" not defined`)
        return fn()
      }
    }
  }
}

/** `.a.b.c`: a missing map key is nil; a field of nil is an error, as in Helm. */
function walk(start: GoValue, path: readonly string[], origin: string): GoValue {
  let value = start
  let walked = origin
  for (const key of path) {
    if (value === null || value === undefined)
      throw new ExecError(`nil pointer evaluating interface {}.${key} (at ${walked})`)
    if (!isMap(value)) throw new ExecError(`can't evaluate field ${key} in ${walked}`)
    value = Object.hasOwn(value, key) ? value[key] : null
    walked = `${walked === '.' ? '' : walked}.${key}`
  }
  return value
}
