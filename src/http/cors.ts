/**
 * CORS headers that AgentOS's auth middleware puts on its own error replies (AUTH-5): only
 * for an allowed Origin (an empty list allows all), never for a disallowed one.
 */
export function corsErrorHeaders(
  origin: string | undefined,
  allowedOrigins: readonly string[],
): Record<string, string> | undefined {
  if (origin === undefined || origin === '') return undefined
  if (allowedOrigins.length > 0 && !allowedOrigins.includes(origin)) return undefined
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': '*',
    'access-control-allow-headers': '*',
    'access-control-expose-headers': '*',
    vary: 'Origin',
  }
}
