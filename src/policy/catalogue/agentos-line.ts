/**
 * The AgentOS release lines Portcullis has a route catalogue for. A line is chosen per generation
 * (`upstream.agentos_version`, or what the upstream publishes); everything that depends on
 * AgentOS's routes reads the catalogue of that line.
 */
export const AGENTOS_LINES = ['2.9', '3.0'] as const

export type AgentOsLine = (typeof AGENTOS_LINES)[number]

export function isAgentOsLine(value: unknown): value is AgentOsLine {
  return AGENTOS_LINES.some((line) => line === value)
}
