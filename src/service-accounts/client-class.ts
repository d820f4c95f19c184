import type { IncomingHttpHeaders } from 'node:http'

/**
 * The kinds of client software an audit event names instead of the header a client describes
 * itself with: that header is free text a client may fill with anything, a secret included, so
 * only one of these words is kept. It is recorded, never decided on.
 */
export const CLIENT_CLASSES = [
  'browser',
  'curl',
  'python',
  'node',
  'go',
  'java',
  'other',
  'none',
] as const
export type ClientClass = (typeof CLIENT_CLASSES)[number]

/** The product tokens each class starts with (lowercase), first match wins. */
const PREFIXES: readonly (readonly [string, ClientClass])[] = [
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

/** The class of a request's client software: `none` when it names none, `other` when unknown. */
export function clientClass(headers: IncomingHttpHeaders): ClientClass {
  // eslint-disable-next-line no-restricted-syntax -- only recorded as a class of a closed set in audit events; no decision reads it
  const value = headers['user-agent']?.trim().toLowerCase()
  if (value === undefined || value === '') return 'none'
  for (const [prefix, kind] of PREFIXES) if (value.startsWith(prefix)) return kind
  return 'other'
}
