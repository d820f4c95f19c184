const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Whether a value is shaped like an account id (a uuid). Where a name or an id may be given, this
 * decides which it is: names are slugs, and a uuid-shaped name would only ever be found by its id.
 */
export function isAccountId(value: string): boolean {
  return UUID.test(value)
}
