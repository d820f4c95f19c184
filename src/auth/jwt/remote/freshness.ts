/** The refresh bounds of `auth.jwks_refresh_min_seconds` / `auth.jwks_refresh_max_seconds`. */
export interface RefreshBounds {
  readonly minSeconds: number
  readonly maxSeconds: number
}

/**
 * How long (seconds) a response may be used before it is fetched again, as its provider says
 * (RFC 9111): `max-age` less the `Age` a cache in between already spent; `no-cache` and
 * `no-store` mean now. Undefined when the response says nothing (then the maximum applies).
 */
export function providerLifetime(
  cacheControl: string | undefined,
  age: string | undefined,
): number | undefined {
  if (cacheControl === undefined) return undefined
  const directives = new Map<string, string | undefined>()
  for (const part of cacheControl.split(',')) {
    const [name, value] = part.trim().split('=', 2)
    if (name === undefined || name === '') continue
    directives.set(name.toLowerCase(), value?.replace(/^"|"$/g, ''))
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0
  const maxAge = directives.get('max-age')
  if (maxAge === undefined || !/^\d+$/.test(maxAge)) return undefined
  const spent = age !== undefined && /^\d+$/.test(age.trim()) ? Number(age.trim()) : 0
  return Math.max(0, Number(maxAge) - spent)
}

/** The provider's lifetime held within the configured bounds (the maximum when it says nothing). */
export function boundedLifetime(lifetime: number | undefined, bounds: RefreshBounds): number {
  if (lifetime === undefined) return bounds.maxSeconds
  return Math.min(bounds.maxSeconds, Math.max(bounds.minSeconds, lifetime))
}

/**
 * When to refresh a key set of this lifetime: before it expires (at 80 % of it), never sooner
 * than the minimum, so that on a normal day the set in use is never past its lifetime.
 */
export function refreshDelaySeconds(lifetimeSeconds: number, bounds: RefreshBounds): number {
  return Math.min(lifetimeSeconds, Math.max(bounds.minSeconds, Math.floor(lifetimeSeconds * 0.8)))
}

/** Retry delay after `failures` consecutive failed fetches: 1 s doubling, capped at the minimum. */
export function retryDelaySeconds(failures: number, bounds: RefreshBounds): number {
  return Math.min(bounds.minSeconds, 2 ** Math.min(Math.max(failures - 1, 0), 16))
}
