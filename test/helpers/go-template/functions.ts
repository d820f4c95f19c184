import { createHash } from 'node:crypto'
import { stringify } from 'yaml'
import {
  ExecError,
  formatFloat,
  formatValue,
  goEqual,
  goLess,
  isMap,
  stringValue,
  toInt,
  toPlain,
  truth,
  type GoValue,
} from './values.js'

/** A template function; arguments are evaluated, a piped value comes last (as in Go). */
export type TemplateFunction = (...args: GoValue[]) => GoValue

function expectString(value: GoValue, fn: string): string {
  if (typeof value !== 'string')
    throw new ExecError(`${fn}: expected a string, got ${formatValue(value)}`)
  return value
}

function expectCount(value: GoValue, fn: string): number {
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'number' && Number.isInteger(value)) return value
  throw new ExecError(`${fn}: expected an integer, got ${formatValue(value)}`)
}

/** sigs.k8s.io/yaml, as Helm's toYaml: sorted keys, no trailing newline. */
function toYaml(value: GoValue): string {
  const text = stringify(toPlain(value), {
    sortMapEntries: true,
    lineWidth: 0,
    indentSeq: false,
  })
  return text.replace(/\n$/, '')
}

function toJson(value: GoValue): string {
  return JSON.stringify(toPlain(value))
}

function indent(count: GoValue, text: GoValue): string {
  const pad = ' '.repeat(expectCount(count, 'indent'))
  return pad + stringValue(text).replaceAll('\n', `\n${pad}`)
}

/** fmt.Sprintf for the verbs the chart uses: %s %d %v %q %%. */
function printf(format: GoValue, ...args: GoValue[]): string {
  let next = 0
  return expectString(format, 'printf').replace(/%([%sdvq])/g, (_, verb: string) => {
    if (verb === '%') return '%'
    if (next >= args.length) return `%!${verb}(MISSING)`
    const arg = args[next++]
    if (verb === 'v') return formatValue(arg)
    if (verb === 'q') return JSON.stringify(stringValue(arg))
    if (verb === 's' && typeof arg === 'string') return arg
    if (verb === 'd' && typeof arg === 'bigint') return String(arg)
    const type = typeof arg === 'number' ? 'float64' : typeof arg === 'bigint' ? 'int' : typeof arg
    const shown = typeof arg === 'number' ? formatFloat(arg) : formatValue(arg)
    return `%!${verb}(${type}=${shown})`
  })
}

/** fmt.Sprint: spaces between operands when neither is a string. */
function print(...args: GoValue[]): string {
  let out = ''
  args.forEach((arg, index) => {
    const previous = args[index - 1]
    if (index > 0 && typeof arg !== 'string' && typeof previous !== 'string') out += ' '
    out += formatValue(arg)
  })
  return out
}

/** The functions of Go templates and sprig that the chart may use; nothing else exists. */
export const FUNCTIONS: Readonly<Record<string, TemplateFunction>> = {
  quote: (...args) =>
    args
      .filter((arg) => arg !== null && arg !== undefined)
      .map((arg) => JSON.stringify(stringValue(arg)))
      .join(' '),
  default: (fallback, ...given) => (given.length === 0 || !truth(given[0]) ? fallback : given[0]),
  empty: (value) => !truth(value),
  required: (message, value) => {
    if (value === null || value === undefined || value === '')
      throw new ExecError(expectString(message, 'required'))
    return value
  },
  fail: (message) => {
    throw new ExecError(expectString(message, 'fail'))
  },
  toYaml,
  toJson,
  indent,
  nindent: (count, text) => `\n${indent(count, text)}`,
  trunc: (count, text) => {
    const n = expectCount(count, 'trunc')
    const value = stringValue(text)
    if (n < 0) return value.length + n > 0 ? value.slice(value.length + n) : value
    return value.slice(0, n)
  },
  trimSuffix: (suffix, text) => {
    const value = stringValue(text)
    const end = stringValue(suffix)
    return end !== '' && value.endsWith(end) ? value.slice(0, -end.length) : value
  },
  contains: (substring, text) => stringValue(text).includes(stringValue(substring)),
  hasPrefix: (prefix, text) =>
    expectString(text, 'hasPrefix').startsWith(expectString(prefix, 'hasPrefix')),
  add1: (value) => toInt(value) + 1n,
  sub: (left, right) => toInt(left) - toInt(right),
  sha256sum: (text) => createHash('sha256').update(stringValue(text)).digest('hex'),
  b64enc: (text) => Buffer.from(stringValue(text)).toString('base64'),
  printf,
  print,
  int: toInt,
  hasKey: (map, key) => isMap(map) && Object.hasOwn(map, expectString(key, 'hasKey')),
  eq: (left, ...rights) => goEqual(left, rights),
  ne: (left, right) => !goEqual(left, [right]),
  lt: (left, right) => goLess(left, right),
  gt: (left, right) => goLess(right, left),
  not: (value) => !truth(value),
}
