import type { JwksFile } from './jwks-file.js'
import type { VerificationKey } from './key-set.js'
import type { RemoteJwks, Unavailability } from './remote/remote-jwks.js'

/** The JWKS key a token names, and what using it implies. */
export interface KeySelection {
  readonly key: VerificationKey | undefined
  /** The `iss` a token verified with `key` must carry (a key of auth.oidc_issuer). */
  readonly issuer: string | undefined
  /** Set when no key was found by `kid` and the remote key set cannot be used: a 503, not a 401. */
  readonly unavailable: Unavailability | undefined
}

/**
 * The keys selected by `kid`, in this order: the remote key set (auth.jwks_url or
 * auth.oidc_issuer), then the JWKS file; a `kid` neither holds refetches the remote set and
 * re-reads the file, each at most once per cooldown, and is then looked up again. Without a match
 * the kid-less key is used (the remote set's, else the file's). The static keys come after all of
 * these (key-order.ts). A `kid` is only ever an exact key of a map.
 */
export class JwksSources {
  readonly remote: RemoteJwks | undefined
  readonly file: JwksFile | undefined

  constructor(remote: RemoteJwks | undefined, file: JwksFile | undefined) {
    this.remote = remote
    this.file = file
  }

  /** Changes whenever the keys either source offers change (the verified-token cache follows it). */
  generationAt(now: number): number {
    return (this.file?.generation ?? 0) + (this.remote?.generationAt(now) ?? 0)
  }

  async select(kid: unknown, now: number): Promise<KeySelection> {
    const wanted = typeof kid === 'string' && kid !== '' ? kid : undefined
    let selection = this.#exact(wanted, now)
    const remote = this.remote
    const remoteMissing = remote !== undefined && remote.keysAt(now) === undefined
    if (selection === undefined && (wanted !== undefined || remoteMissing)) {
      await Promise.all([
        remote?.refreshForUnknownKid(now),
        wanted === undefined ? undefined : this.file?.refreshForUnknownKid(),
      ])
      selection = this.#exact(wanted, now)
    }
    return selection ?? this.#fallback(now)
  }

  /** Whether either source holds any key now (to tell an unknown `kid` from no keys at all). */
  hasKeys(now: number): boolean {
    return (this.remote?.keysAt(now)?.count ?? 0) > 0 || (this.file?.keys.count ?? 0) > 0
  }

  close(): void {
    this.remote?.release()
    this.file?.close()
  }

  #exact(kid: string | undefined, now: number): KeySelection | undefined {
    if (kid === undefined) return undefined
    const remote = this.remote
    const remoteKey = remote?.keysAt(now)?.byKid.get(kid)
    if (remoteKey !== undefined) {
      return { key: remoteKey, issuer: remote?.settings.issuer, unavailable: undefined }
    }
    const fileKey = this.file?.keys.byKid.get(kid)
    return fileKey === undefined
      ? undefined
      : { key: fileKey, issuer: undefined, unavailable: undefined }
  }

  #fallback(now: number): KeySelection {
    const remote = this.remote
    const remoteFallback = remote?.keysAt(now)?.fallback
    if (remoteFallback !== undefined) {
      return { key: remoteFallback, issuer: remote?.settings.issuer, unavailable: undefined }
    }
    return {
      key: this.file?.keys.fallback,
      issuer: undefined,
      unavailable: remote?.unavailability(now),
    }
  }
}
