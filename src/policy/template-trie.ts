import type { TemplateSegment } from './route-template.js'

interface TrieNode<T> {
  readonly literals: Map<string, TrieNode<T>>
  param: TrieNode<T> | undefined
  /** The value whose template ends here with `{**}`: it takes every remaining segment. */
  tail: T | undefined
  /** The value whose template ends exactly here. */
  end: T | undefined
}

function newNode<T>(): TrieNode<T> {
  return { literals: new Map(), param: undefined, tail: undefined, end: undefined }
}

/**
 * Templates of one method, matched segment by segment: depth-first in the order literal,
 * one-segment parameter, tail, so the first complete match is the most specific one, compared
 * segment by segment from the left. A parameter also matches an empty segment, as fnmatch's `*`
 * does (canonical paths have none). Inserting the same template twice keeps the later value.
 */
export class TemplateTrie<T> {
  readonly #root: TrieNode<T> = newNode()

  insert(segments: readonly TemplateSegment[], value: T): void {
    let node = this.#root
    for (const segment of segments) {
      switch (segment.kind) {
        case 'literal': {
          let next = node.literals.get(segment.value)
          if (next === undefined) node.literals.set(segment.value, (next = newNode()))
          node = next
          break
        }
        case 'param':
          node = node.param ??= newNode()
          break
        case 'tail':
          node.tail = value
          return
      }
    }
    node.end = value
  }

  /** `segments` of a canonical path: `/` is `[]`, `/a/b` is `['a', 'b']`. */
  find(segments: readonly string[]): T | undefined {
    return find(this.#root, segments, 0)
  }
}

function find<T>(node: TrieNode<T>, segments: readonly string[], index: number): T | undefined {
  const segment = segments[index]
  if (segment === undefined) return node.end
  const literal = node.literals.get(segment)
  const viaLiteral = literal === undefined ? undefined : find(literal, segments, index + 1)
  if (viaLiteral !== undefined) return viaLiteral
  const viaParam = node.param === undefined ? undefined : find(node.param, segments, index + 1)
  return viaParam ?? node.tail
}

/** The segments of a canonical path, or undefined for one that does not start with `/`. */
export function pathSegments(path: string): readonly string[] | undefined {
  if (!path.startsWith('/')) return undefined
  return path === '/' ? [] : path.slice(1).split('/')
}
