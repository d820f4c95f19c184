import { AGENTOS_LINES } from '../policy/catalogue/agentos-line.js'
import { settingName } from '../startup-error.js'
import type { AgentOsLine } from '../policy/catalogue/agentos-line.js'
import type { Detection } from './agentos-detection.js'

export const AGENTOS_SETTING = settingName('upstream.agentos_version', 'PORTCULLIS_AGENTOS_VERSION')

const LINES = AGENTOS_LINES.join(', ')

/** What the upstream reported, in words: `agno 3.0.0a3`, `agno 3.1.0, newer than …`. */
export function describeReport(detection: Detection): string {
  switch (detection.kind) {
    case 'line': {
      const version = `agno ${detection.agnoVersion ?? '(no agno_version)'}`
      return detection.basis === 'release'
        ? version
        : `${version}, ${detection.line} by the shape of /info and /openapi.json`
    }
    case 'unsupported':
      return `agno ${detection.agnoVersion}, ${detection.direction} than every AgentOS line with a route catalogue (${LINES})`
    case 'unreadable':
      return `an answer that does not say which AgentOS it is (${detection.why})`
  }
}

/**
 * The one line a start refused under `auto` prints: the setting, what the upstream reported, and
 * what the operator can do.
 */
export function refusalAtStart(
  detection: Exclude<Detection, { kind: 'line' }>,
  upstreamUrl: string,
): string {
  const what = `${AGENTOS_SETTING} is auto, and the upstream at ${new URL(upstreamUrl).origin} reports ${describeReport(detection)}`
  const pinning = (line: string): string =>
    `pin upstream.agentos_version to ${line} to run with that line's catalogue (routes it does not know are then denied)`
  const oldest = AGENTOS_LINES[0]
  const newest = AGENTOS_LINES[AGENTOS_LINES.length - 1]
  if (detection.kind === 'unreadable') {
    const choices = AGENTOS_LINES.map((line) => `"${line}"`).join(' or ')
    return `${what}: check that upstream.url points at AgentOS, or ${pinning(`the line it runs (${choices})`)}`
  }
  if (detection.direction === 'older')
    return `${what}: upgrade AgentOS to ${oldest} or later, or ${pinning(`"${oldest}"`)}`
  return `${what}: run a Portcullis release that supports it, or ${pinning(`"${newest}"`)}`
}

/** The warning when the upstream contradicts a pinned line. */
export function pinMismatch(pinned: AgentOsLine, detection: Detection): string {
  return `upstream.agentos_version pins ${pinned}, but the upstream reports ${describeReport(detection)}: unless auth.deny_unmapped_routes is set, routes the ${pinned} catalogue does not know are denied`
}
