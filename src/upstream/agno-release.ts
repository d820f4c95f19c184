import type { AgentOsLine } from '../policy/catalogue/agentos-line.js'

/** A version number agno publishes (PEP 440, as its packages are numbered). */
export interface AgnoRelease {
  readonly major: number
  readonly minor: number
  readonly patch: number
  /** The version as reported (`3.0.0a3`). */
  readonly text: string
}

// Release, pre-release (a/b/rc), post- and dev-release, local label: what `agno.__version__` can be.
const PEP_440 =
  /^(\d{1,4})\.(\d{1,4})\.(\d{1,4})(?:(?:a|b|rc)\d{1,4})?(?:\.post\d{1,4})?(?:\.dev\d{1,4})?(?:\+[0-9a-z.]{1,32})?$/i

/** The release `text` names, or undefined when it is not a version number at all. */
export function parseAgnoRelease(text: unknown): AgnoRelease | undefined {
  if (typeof text !== 'string') return undefined
  const match = PEP_440.exec(text)
  if (match === null) return undefined
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), text }
}

/**
 * agno run from a source checkout reports `0.0.0` (its package metadata has no version): a
 * version number that says nothing about the release.
 */
export function isSourceBuild(release: AgnoRelease): boolean {
  return release.major === 0 && release.minor === 0 && release.patch === 0
}

/**
 * The line whose catalogue covers `release`: every 2.x from 2.9 on (2.x releases after 2.9 only
 * add to it, as 2.9 did to 2.8), and 3.0.x with its pre-releases. Anything older predates the
 * routes the 2.9 catalogue describes; anything newer may have moved checks the catalogues do not
 * know about, which is how 3.0 broke the promise for 2.9's knowledge.
 */
export function lineOfRelease(release: AgnoRelease): AgentOsLine | 'older' | 'newer' {
  const { major, minor } = release
  if (major === 2 && minor >= 9) return '2.9'
  if (major === 3 && minor === 0) return '3.0'
  return major < 2 || (major === 2 && minor < 9) ? 'older' : 'newer'
}
