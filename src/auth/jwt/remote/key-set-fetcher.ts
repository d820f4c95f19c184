import type { Clock } from '../../../clock.js'
import { parseJson } from '../json-document.js'
import { KeyFetchError } from './fetch-errors.js'
import { boundedLifetime, retryDelaySeconds, type RefreshBounds } from './freshness.js'
import type { GuardedHttpClient } from './guarded-http-client.js'

/** Where the keys come from: a JWKS URL, or an OpenID Connect issuer's discovery document. */
export type KeySetLocation =
  | { readonly kind: 'jwks_url'; readonly url: string }
  | { readonly kind: 'oidc'; readonly issuer: string }

/** One answer of the JWKS endpoint: a document, or "the one you have is current" (304). */
export type FetchedKeySet =
  | {
      readonly kind: 'document'
      readonly text: string
      readonly etag: string | undefined
      readonly lifetimeSeconds: number | undefined
    }
  | { readonly kind: 'not_modified'; readonly lifetimeSeconds: number | undefined }

/** Fetches the key set, conditionally when `etag` is given. Throws KeyFetchError. */
export interface KeySetFetcher {
  fetch(etag: string | undefined): Promise<FetchedKeySet>
  close(): Promise<void>
}

interface Discovered {
  readonly jwksUri: URL
  readonly etag: string | undefined
  /** Epoch ms after which the discovery document is asked for again. */
  readonly refreshAt: number
}

/**
 * The JWKS over HTTP. For an issuer, its discovery document (OpenID Connect Discovery 1.0 §4) is
 * fetched first and kept as long as its Cache-Control says (within the refresh bounds); its
 * `issuer` must be exactly the configured one (§4.3), and when it cannot be refreshed the last
 * `jwks_uri` keeps being used. The URLs come from the config and that document only, never from
 * a token.
 */
export class HttpKeySetFetcher implements KeySetFetcher {
  readonly #location: KeySetLocation
  readonly #client: GuardedHttpClient
  readonly #clock: Clock
  readonly #bounds: RefreshBounds
  #discovered: Discovered | undefined
  #discoveryFailures = 0

  constructor(
    location: KeySetLocation,
    client: GuardedHttpClient,
    clock: Clock,
    bounds: RefreshBounds,
  ) {
    this.#location = location
    this.#client = client
    this.#clock = clock
    this.#bounds = bounds
  }

  async fetch(etag: string | undefined): Promise<FetchedKeySet> {
    const response = await this.#client.get(await this.#jwksUri(), etag)
    if (response.status === 304) {
      return { kind: 'not_modified', lifetimeSeconds: response.lifetimeSeconds }
    }
    return {
      kind: 'document',
      text: response.body,
      etag: response.etag,
      lifetimeSeconds: response.lifetimeSeconds,
    }
  }

  close(): Promise<void> {
    return this.#client.close()
  }

  async #jwksUri(): Promise<URL> {
    const location = this.#location
    if (location.kind === 'jwks_url') return new URL(location.url)
    const known = this.#discovered
    const now = this.#clock.now()
    if (known !== undefined && now < known.refreshAt) return known.jwksUri
    let discovered: Discovered
    try {
      discovered = await this.#discover(location.issuer, known, now)
      this.#discoveryFailures = 0
    } catch (error) {
      if (known === undefined) throw error
      // The issuer's JWKS location rarely moves: keep using it, and ask again later.
      this.#discoveryFailures += 1
      const retry = retryDelaySeconds(this.#discoveryFailures, this.#bounds)
      discovered = { ...known, refreshAt: now + retry * 1000 }
    }
    this.#discovered = discovered
    return discovered.jwksUri
  }

  async #discover(issuer: string, known: Discovered | undefined, now: number): Promise<Discovered> {
    const url = new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`)
    const response = await this.#client.get(url, known?.etag)
    const refreshAt = now + boundedLifetime(response.lifetimeSeconds, this.#bounds) * 1000
    if (response.status === 304 && known !== undefined) return { ...known, refreshAt }
    const where = `the discovery document ${url.origin}${url.pathname}`
    const parsed = parseJson(response.body)
    if ('problem' in parsed)
      throw new KeyFetchError('invalid', `Invalid JSON in ${where}: ${parsed.problem}`)
    const document = parsed.value
    if (typeof document !== 'object' || document === null || Array.isArray(document)) {
      throw new KeyFetchError('invalid', `${where} is not a JSON object`)
    }
    const { issuer: stated, jwks_uri: jwksUri } = document as Record<string, unknown>
    if (stated !== issuer) {
      throw new KeyFetchError(
        'invalid',
        `${where} names the issuer ${JSON.stringify(stated)}, not auth.oidc_issuer ${JSON.stringify(issuer)}`,
      )
    }
    if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri)) {
      throw new KeyFetchError('invalid', `${where} has no valid "jwks_uri"`)
    }
    return { jwksUri: new URL(jwksUri), etag: response.etag, refreshAt }
  }
}
