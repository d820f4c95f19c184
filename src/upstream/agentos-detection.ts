import { AGENTOS_LINES, type AgentOsLine } from '../policy/catalogue/agentos-line.js'
import { isSourceBuild, lineOfRelease, parseAgnoRelease } from './agno-release.js'

/** What the upstream's own answers say about the AgentOS it runs. */
export type Detection =
  | {
      readonly kind: 'line'
      readonly line: AgentOsLine
      /** `agno_version` as reported (shown, never trusted further); undefined when absent. */
      readonly agnoVersion: string | undefined
      /** release: `agno_version` names the release; shape: the fields of /info and the routes. */
      readonly basis: 'release' | 'shape'
    }
  | {
      readonly kind: 'unsupported'
      readonly agnoVersion: string
      readonly direction: 'older' | 'newer'
    }
  | { readonly kind: 'unreadable'; readonly why: string }

/** /info does not settle it (agno run from source, or no version number): the routes must. */
export interface ShapeQuestion {
  readonly kind: 'shape'
  readonly agnoVersion: string | undefined
  /** `os_version` in /info: a field 3.0 added. */
  readonly osVersion: boolean
}

/**
 * Routes only 3.0 serves: component restore and the metrics refresh status always; the job queue
 * and session media when those features are on.
 */
const THREE_ZERO_ROUTES = [
  '/components/{}/restore',
  '/metrics/refresh/status',
  '/queue/jobs',
  '/queue/jobs/{}',
  '/queue/stats',
  '/sessions/{}/media/{}',
]

const SHOWN_VERSION_LENGTH = 40

/**
 * The verdict of `GET /info` alone. `agno_version` that names a release decides (2.x from 2.9 on:
 * 2.9; 3.0.x: 3.0; anything else is unsupported), unless /info also has `os_version`, which only
 * 3.0 reports: a 2.x number beside it is contradictory. `0.0.0` (agno run from source), an absent
 * or non-numeric `agno_version` leave the question to the routes (`decideFromRoutes`).
 */
export function decideFromInfo(info: unknown): Detection | ShapeQuestion {
  if (typeof info !== 'object' || info === null || Array.isArray(info))
    return { kind: 'unreadable', why: 'GET /info did not answer a JSON object' }
  const fields = info as Record<string, unknown>
  const agnoVersion = shownVersion(fields.agno_version)
  const osVersion = 'os_version' in fields
  const release = parseAgnoRelease(fields.agno_version)
  if (release === undefined || isSourceBuild(release))
    return { kind: 'shape', agnoVersion, osVersion }
  const line = lineOfRelease(release)
  if (line === 'older' || line === 'newer')
    return { kind: 'unsupported', agnoVersion: release.text, direction: line }
  if (line === '2.9' && osVersion) {
    return {
      kind: 'unreadable',
      why: `GET /info is contradictory: agno_version ${release.text} beside os_version, which only 3.0 reports`,
    }
  }
  return { kind: 'line', line, agnoVersion: release.text, basis: 'release' }
}

/**
 * The verdict of /info's shape and the paths of `GET /openapi.json` (undefined when that could not
 * be read). Signs of 3.0: `os_version` in /info, or a route only 3.0 serves (`THREE_ZERO_ROUTES`).
 * Signs of 2.9: `GET /models` (2.9's base router always serves it; 3.0 removed it) or an A2A
 * `…/message/send` route (2.9's deprecated A2A paths, which 3.0 removed). Signs of both are
 * contradictory; signs of neither leave the version unknown. Both are unreadable: guessing would
 * pick a catalogue that may not describe the upstream's routes.
 */
export function decideFromRoutes(
  question: ShapeQuestion,
  paths: readonly string[] | undefined,
): Detection {
  const templates = new Set((paths ?? []).map(template))
  const threeZero = THREE_ZERO_ROUTES.filter((route) => templates.has(route))
  if (question.osVersion) threeZero.unshift('os_version in /info')
  const twoNine = [...templates].filter(
    (route) => route === '/models' || route.endsWith('/message/send'),
  )
  const found = `agno_version ${question.agnoVersion ?? 'absent'}`
  if (threeZero.length > 0 && twoNine.length > 0) {
    return {
      kind: 'unreadable',
      why: `${found}, and the signs contradict each other: ${threeZero[0]} (3.0) beside ${twoNine[0]} (2.9)`,
    }
  }
  if (threeZero.length > 0 || twoNine.length > 0) {
    return {
      kind: 'line',
      line: threeZero.length > 0 ? '3.0' : '2.9',
      agnoVersion: question.agnoVersion,
      basis: 'shape',
    }
  }
  const routes =
    paths === undefined ? 'GET /openapi.json could not be read to show' : 'no route shows'
  return {
    kind: 'unreadable',
    why: `${found}, and ${routes} which line (${AGENTOS_LINES.join(', ')}) it is`,
  }
}

/** `/sessions/{session_id}/media/{key}` → `/sessions/{}/media/{}`: parameter names differ. */
function template(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '')
}

/** Reported text kept for messages: bounded, printable. */
function shownVersion(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  // eslint-disable-next-line no-control-regex
  return value.slice(0, SHOWN_VERSION_LENGTH).replace(/[\u0000-\u001f\u007f]/g, '?')
}
