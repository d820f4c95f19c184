import { GatewayError } from '../errors.js'

/** One segment of a route template: a literal, any one segment, or one or more segments. */
export type TemplateSegment =
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'param' }
  | { readonly kind: 'tail' }

/** A `"<METHOD> <path>"` mapping key, split. */
export interface MappingKey {
  readonly method: string
  readonly template: string
}

const PARAM_SEGMENT = /^\{[A-Za-z_][A-Za-z0-9_]*\}$/
const TAIL_SEGMENTS: ReadonlySet<string> = new Set(['{**}', '**'])
// Glob and brace characters only make sense as a whole segment; refusing them inside a literal
// keeps an AgentOS-style pattern such as `/reports/*.json` from silently matching nothing.
const WILDCARD_CHARACTERS = /[{}*?[\]]/
const METHOD = /^[A-Z]+$/

type Parsed = { readonly segments: TemplateSegment[] } | { readonly problem: string }

function parse(template: string): Parsed {
  if (!template.startsWith('/')) return { problem: 'the path must start with "/"' }
  if (template === '/') return { segments: [] }
  const parts = template.slice(1).split('/')
  const segments: TemplateSegment[] = []
  for (const [index, part] of parts.entries()) {
    if (part === '') return { problem: 'empty path segment (a "//" or a trailing "/")' }
    if (TAIL_SEGMENTS.has(part)) {
      if (index !== parts.length - 1) return { problem: `"${part}" must be the last segment` }
      segments.push({ kind: 'tail' })
    } else if (part === '*' || PARAM_SEGMENT.test(part)) {
      segments.push({ kind: 'param' })
    } else if (WILDCARD_CHARACTERS.test(part)) {
      return { problem: `"${part}": a parameter must be a whole segment: {name}, * or {**}` }
    } else {
      segments.push({ kind: 'literal', value: part })
    }
  }
  return { segments }
}

function invalid(what: string, problem: string): GatewayError {
  return new GatewayError('INTERNAL', `Invalid ${what}: ${problem}`, { reason: 'policy.template' })
}

/** Why a template is not valid, or undefined when it is. */
export function templateProblem(template: string): string | undefined {
  const parsed = parse(template)
  return 'problem' in parsed ? parsed.problem : undefined
}

export function parseTemplate(template: string): TemplateSegment[] {
  const parsed = parse(template)
  if ('problem' in parsed) throw invalid(`route template "${template}"`, parsed.problem)
  return parsed.segments
}

/**
 * The identity of a rule: templates that match exactly the same paths with the same specificity
 * (`/a/{x}`, `/a/{y}`, `/a/*`) share a key, so a later one replaces an earlier one.
 */
export function ruleKey(method: string, segments: readonly TemplateSegment[]): string {
  const path = segments.map((segment) => {
    switch (segment.kind) {
      case 'literal':
        return segment.value
      case 'param':
        return '{}'
      case 'tail':
        return '{**}'
    }
  })
  return `${method} /${path.join('/')}`
}

/** Why a `"<METHOD> <path>"` key is not valid, or undefined when it is. */
export function mappingKeyProblem(key: string): string | undefined {
  const space = key.indexOf(' ')
  if (space === -1) return 'expected "<METHOD> <path>", e.g. "GET /reports/{id}"'
  const method = key.slice(0, space)
  if (!METHOD.test(method)) return `"${method}" is not an upper-case HTTP method`
  return templateProblem(key.slice(space + 1))
}

/** Splits a user's `scope_mappings` key such as `"GET /reports/{id}"`. */
export function parseMappingKey(key: string): MappingKey {
  const problem = mappingKeyProblem(key)
  if (problem !== undefined) throw invalid(`scope mapping key "${key}"`, problem)
  const space = key.indexOf(' ')
  return { method: key.slice(0, space), template: key.slice(space + 1) }
}
