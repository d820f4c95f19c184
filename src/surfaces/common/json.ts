/** A parsed JSON object, as read from a client message. */
export type JsonObject = Record<string, unknown>

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function objectMember(object: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = object?.[key]
  return isJsonObject(value) ? value : undefined
}

/** A member that names a resource: a non-empty string without `/`, else undefined. */
export function idMember(object: JsonObject | undefined, key: string): string | undefined {
  const value = object?.[key]
  return typeof value === 'string' && value !== '' && !value.includes('/') ? value : undefined
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Parses a request body as JSON; undefined when it is not strict UTF-8 JSON. Python's json also
 * reads UTF-16/32 and NaN: such bodies are refused rather than passed on uninspected.
 */
export function parseJson(raw: Buffer): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(STRICT_UTF8.decode(raw)) as unknown }
  } catch {
    return undefined
  }
}
