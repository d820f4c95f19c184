/**
 * Go's view of template values, as Helm gives them: values from YAML are float64 (JS `number`),
 * integers written in a template or made by `int` are int (JS `bigint`), so the renderer keeps
 * Helm's traps: `gt .Values.replicas 1` fails (float vs int), and `{{ 1048576.0 }}` prints
 * `1.048576e+06`.
 */

export type GoValue = unknown

export class ExecError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ExecError'
  }
}

export function isMap(value: GoValue): value is Record<string, GoValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Go template truth: false, 0, nil, and empty strings, slices and maps are false. */
export function truth(value: GoValue): boolean {
  if (value === null || value === undefined) return false
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') return value.length > 0
  if (typeof value === 'number') return value !== 0
  if (typeof value === 'bigint') return value !== 0n
  if (Array.isArray(value)) return value.length > 0
  if (isMap(value)) return Object.keys(value).length > 0
  return true
}

/** fmt's %v of a float64: shortest digits, exponent form from 1e+06 up and below 1e-04. */
export function formatFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf'
  if (value === 0) return Object.is(value, -0) ? '-0' : '0'
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string]
  const exponent = Number(exponentText)
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+'
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`
  }
  return String(value)
}

/** fmt's %v. nil prints `<no value>`, which Helm removes from the final output. */
export function formatValue(value: GoValue): string {
  if (value === null || value === undefined) return '<no value>'
  if (typeof value === 'string') return value
  if (typeof value === 'number') return formatFloat(value)
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return `[${value.map(formatValue).join(' ')}]`
  if (isMap(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${formatValue(value[key])}`)
    return `map[${entries.join(' ')}]`
  }
  throw new ExecError(`cannot print a ${typeof value}`)
}

/** sprig's strval: a string as is, anything else as %v. */
export function stringValue(value: GoValue): string {
  return typeof value === 'string' ? value : formatValue(value)
}

type Kind = 'bool' | 'int' | 'float' | 'string' | 'nil' | 'other'

function kindOf(value: GoValue): Kind {
  if (value === null || value === undefined) return 'nil'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'bigint') return 'int'
  if (typeof value === 'number') return 'float'
  if (typeof value === 'string') return 'string'
  return 'other'
}

/** text/template `eq`: true if `left` equals any of `rights`; int vs float is an error, as in Go. */
export function goEqual(left: GoValue, rights: readonly GoValue[]): boolean {
  if (rights.length === 0) throw new ExecError('missing argument for comparison')
  const leftKind = kindOf(left)
  for (const right of rights) {
    const rightKind = kindOf(right)
    if (leftKind !== rightKind) {
      if (leftKind !== 'nil' && rightKind !== 'nil')
        throw new ExecError(`incompatible types for comparison (${leftKind} and ${rightKind})`)
      continue
    }
    if (leftKind === 'other') throw new ExecError('non-comparable types')
    if (left === right || (leftKind === 'nil' && rightKind === 'nil')) return true
  }
  return false
}

/** text/template `lt`; `gt` is `lt` with the operands swapped. */
export function goLess(left: GoValue, right: GoValue): boolean {
  const leftKind = kindOf(left)
  const rightKind = kindOf(right)
  if (leftKind !== rightKind)
    throw new ExecError(`incompatible types for comparison (${leftKind} and ${rightKind})`)
  if (leftKind !== 'int' && leftKind !== 'float' && leftKind !== 'string')
    throw new ExecError(`invalid type for comparison (${leftKind})`)
  return (left as number) < (right as number)
}

/** spf13/cast ToInt, as sprig's `int`: the result is a Go int. */
export function toInt(value: GoValue): bigint {
  if (value === null || value === undefined) return 0n
  if (typeof value === 'bigint') return value
  if (typeof value === 'number') return BigInt(Math.trunc(value))
  if (typeof value === 'boolean') return value ? 1n : 0n
  if (typeof value === 'string') {
    const parsed = Number.parseInt(value, 10)
    return Number.isNaN(parsed) ? 0n : BigInt(parsed)
  }
  throw new ExecError(`cannot convert a ${typeof value} to int`)
}

/** Plain JS data for YAML and JSON encoders: Go ints become numbers. */
export function toPlain(value: GoValue): unknown {
  if (typeof value === 'bigint') return Number(value)
  if (Array.isArray(value)) return value.map(toPlain)
  if (isMap(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, toPlain(value[key])]),
    )
  return value ?? null
}
