/**
 * The kinds of client an audit event names instead of the User-Agent itself: a header is free
 * text a client may fill with anything, a secret included, so only one of these words is kept.
 */
export const USER_AGENT_CLASSES = [
  'browser',
  'curl',
  'python',
  'node',
  'go',
  'java',
  'other',
  'none',
] as const
export type UserAgentClass = (typeof USER_AGENT_CLASSES)[number]

/** The product tokens each class starts with (lowercase), first match wins. */
const PREFIXES: readonly (readonly [string, UserAgentClass])[] = [
  ['mozilla/', 'browser'],
  ['curl/', 'curl'],
  ['python', 'python'],
  ['httpx', 'python'],
  ['aiohttp', 'python'],
  ['urllib', 'python'],
  ['node', 'node'],
  ['undici', 'node'],
  ['axios', 'node'],
  ['bun/', 'node'],
  ['deno/', 'node'],
  ['go-http-client', 'go'],
  ['java', 'java'],
  ['okhttp', 'java'],
  ['apache-httpclient', 'java'],
]

/** The class of a User-Agent header: `none` when absent or empty, `other` when unrecognized. */
export function userAgentClass(header: string | readonly string[] | undefined): UserAgentClass {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim().toLowerCase()
  if (value === undefined || value === '') return 'none'
  for (const [prefix, kind] of PREFIXES) if (value.startsWith(prefix)) return kind
  return 'other'
}
