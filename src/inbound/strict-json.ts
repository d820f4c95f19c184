const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Parses a body as JSON; undefined when it is not strict UTF-8 JSON. Python's json also reads
 * UTF-16/32 and NaN: such bodies are refused rather than passed on uninspected.
 */
export function parseJson(raw: Buffer): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(STRICT_UTF8.decode(raw)) as unknown }
  } catch {
    return undefined
  }
}
