import { lookup } from 'node:dns/promises'
import { readFile } from 'node:fs/promises'
import type { Config } from '../../../config/schema.js'
import type { Logger } from '../../../logger.js'
import type { Metrics } from '../../../metrics.js'
import { systemClock, type Clock } from '../../../clock.js'
import { ipLiteral, isNonPublicAddress } from './address-policy.js'
import { GuardedHttpClient, type HttpPolicy } from './guarded-http-client.js'
import { HttpKeySetFetcher, type KeySetFetcher, type KeySetLocation } from './key-set-fetcher.js'
import { RemoteJwks, type RemoteJwksSettings } from './remote-jwks.js'
import { systemTimers, type Timers } from '../../../timers.js'

export interface RemoteJwksDependencies {
  readonly logger: Logger
  readonly metrics?: Metrics | undefined
  readonly clock?: Clock | undefined
  readonly timers?: Timers | undefined
  /** Replaces the HTTP fetcher (unit tests drive the cache with a fake provider). */
  readonly remoteFetcher?: ((location: KeySetLocation) => KeySetFetcher) | undefined
}

interface RemotePlan {
  readonly key: string
  readonly location: KeySetLocation
  readonly settings: RemoteJwksSettings
  readonly http: Omit<HttpPolicy, 'ca'>
  readonly caFile: string | null
}

/** What `auth.jwks_url` / `auth.oidc_issuer` and their settings ask for; undefined without either. */
function planRemote(auth: Config['auth']): RemotePlan | undefined {
  const location: KeySetLocation | undefined =
    auth.oidc_issuer !== null
      ? { kind: 'oidc', issuer: auth.oidc_issuer }
      : auth.jwks_url !== null
        ? { kind: 'jwks_url', url: auth.jwks_url }
        : undefined
  if (location === undefined) return undefined
  const settings: RemoteJwksSettings = {
    endpoint: location.kind === 'oidc' ? location.issuer : location.url,
    algorithm: auth.algorithm,
    issuer: location.kind === 'oidc' ? location.issuer : undefined,
    bounds: {
      minSeconds: auth.jwks_refresh_min_seconds,
      maxSeconds: auth.jwks_refresh_max_seconds,
    },
    maxStaleSeconds: auth.jwks_max_stale_seconds,
    graceSeconds: auth.jwks_removed_key_grace_seconds,
    cooldownSeconds: auth.jwks_reload_cooldown_seconds,
    maxKeys: auth.jwks_max_keys,
  }
  const http = {
    timeoutMs: auth.jwks_fetch_timeout_ms,
    maxBytes: auth.jwks_max_bytes,
    allowHttp: auth.jwks_allow_http,
    allowPrivateAddresses: auth.jwks_allow_private_addresses,
  }
  const caFile = auth.jwks_ca_file
  return {
    key: JSON.stringify({ location, settings, http, caFile }),
    location,
    settings,
    http,
    caFile,
  }
}

/**
 * The remote key set `auth` configures, or undefined. With the same settings as `previous` (a
 * reload), `previous` is shared, keys, freshness and cooldown included; otherwise a new one is
 * started and its first fetch awaited (a failure leaves it unavailable, it never stops startup).
 */
export async function openRemoteJwks(
  auth: Config['auth'],
  deps: RemoteJwksDependencies,
  previous: RemoteJwks | undefined,
): Promise<RemoteJwks | undefined> {
  const plan = planRemote(auth)
  if (plan === undefined) return undefined
  if (previous?.key === plan.key) return previous.retain()
  const clock = deps.clock ?? systemClock
  const fetcher =
    deps.remoteFetcher?.(plan.location) ?? (await httpFetcher(plan, auth, deps, clock))
  return RemoteJwks.start({
    settings: plan.settings,
    key: plan.key,
    fetcher,
    logger: deps.logger,
    metrics: deps.metrics,
    clock,
    timers: deps.timers ?? systemTimers,
  })
}

async function httpFetcher(
  plan: RemotePlan,
  auth: Config['auth'],
  deps: RemoteJwksDependencies,
  clock: Clock,
): Promise<KeySetFetcher> {
  await checkRemoteEndpoint(auth, deps.logger)
  return new HttpKeySetFetcher(
    plan.location,
    new GuardedHttpClient({ ...plan.http, ca: await readCa(plan.caFile) }),
    clock,
    plan.settings.bounds,
  )
}

/**
 * The address policy at start-up (serve and `config check` both run it): the key-set endpoint's
 * host resolved now. On a non-public address without auth.jwks_allow_private_addresses it is an
 * Error naming the setting, since every fetch would be refused and every JWT answered 503; a host
 * that does not resolve now is only logged, as the fetch retries.
 */
export async function checkRemoteEndpoint(auth: Config['auth'], logger: Logger): Promise<void> {
  const plan = planRemote(auth)
  if (plan === undefined || plan.http.allowPrivateAddresses) return
  const key = plan.location.kind === 'oidc' ? 'auth.oidc_issuer' : 'auth.jwks_url'
  const host = new URL(plan.settings.endpoint).hostname
  const resolved = await resolveHost(host, plan.http.timeoutMs)
  if ('problem' in resolved) {
    logger.warn(
      { [key]: plan.settings.endpoint, error: resolved.problem },
      "the identity provider's host does not resolve now; JWTs needing its keys get 503 until it does",
    )
    return
  }
  const blocked = resolved.addresses.find(isNonPublicAddress)
  if (blocked !== undefined) {
    throw new Error(
      `${key}: ${host} resolves to the non-public address ${blocked}; set auth.jwks_allow_private_addresses: true if the identity provider is meant to be there (an in-cluster Keycloak or Dex)`,
    )
  }
}

async function resolveHost(
  host: string,
  timeoutMs: number,
): Promise<{ addresses: string[] } | { problem: string }> {
  const literal = ipLiteral(host)
  if (literal !== undefined) return { addresses: [literal] }
  let timer: NodeJS.Timeout | undefined
  try {
    const found = await Promise.race([
      lookup(host, { all: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
    return { addresses: found.map((entry) => entry.address) }
  } catch (error) {
    return { problem: (error as NodeJS.ErrnoException).code ?? (error as Error).message }
  } finally {
    clearTimeout(timer)
  }
}

async function readCa(path: string | null): Promise<string | undefined> {
  if (path === null) return undefined
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    throw new Error(`auth.jwks_ca_file: cannot read ${path} (${code})`)
  }
}
