/** What tells the two AgentOS release lines apart where a client can see it. */
import type { AgentOsLine } from './types.js'

interface LineInfo {
  /** `agno_version` of `/info`: the agno library's release */
  agnoVersion: string
  /** the demo's own version string (`/`, `/info`, agent cards, the OpenAPI document) */
  runtimeVersion: string
  /** `os_version` of `/info` (the app's configured version), which 3.0 added */
  osVersion?: string
}

export const LINES: Record<AgentOsLine, LineInfo> = {
  '2.9': { agnoVersion: '2.9.0', runtimeVersion: '2.9.0-demo' },
  '3.0': { agnoVersion: '3.0.0a3', runtimeVersion: '3.0.0a3-demo', osVersion: '1.0.0' },
}

export function isAgentOsLine(value: string | undefined): value is AgentOsLine {
  return value === '2.9' || value === '3.0'
}
