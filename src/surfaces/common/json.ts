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

export { parseJson } from '../../inbound/strict-json.js'
