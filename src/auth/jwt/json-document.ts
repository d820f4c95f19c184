/**
 * JSON.parse that reports a syntax error as a short reason instead of throwing. V8 quotes a piece
 * of the input after `, "`; a JWKS of HMAC keys holds secrets, so that piece is cut.
 */
export function parseJson(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch (error) {
    return { problem: (error as Error).message.replace(/, ".*$/s, '') }
  }
}
