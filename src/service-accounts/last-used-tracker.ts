import { BoundedCache } from '../bounded-cache.js'

/**
 * What a successful use is due to write: `last_used_at` (the account's interval is over), the
 * client address (not seen for this account within the interval), both, or nothing.
 */
export type UseClaim = 'none' | 'last_used' | 'address' | 'both'

/**
 * One account's writes: the whole millisecond at or after each, small integers, no box. Most
 * accounts are used from one address: it is kept in the entry itself, and a map (about 200 bytes
 * more per account) is made only when a second address is written.
 */
interface AccountWrites {
  /** NEVER until the first write. */
  lastUsed: number
  /** The one address written, while there is only one. */
  address: string | undefined
  addressAt: number
  /** Address → its last write, oldest first (a write moves it to the end), once there are two. */
  addresses: Map<string, number> | undefined
}

/**
 * "Never written": the monotonic clock never reads below 0. A sentinel of -Infinity made V8 keep
 * every entry's field as a separate 16-byte number box; whole milliseconds stay in the entry itself
 * (for the first 24 days of a process; past 2^31 ms they are boxed again).
 */
const NEVER = -1

/**
 * Decides when a use is written: `last_used_at` at most once per interval per account in this
 * process (PAT-7), so a busy token costs one write a minute, not one per request, and each client
 * address at most once per interval per account, for the audit trail to tell a new one.
 *
 * One entry per account, and at most `maxAddresses` addresses in it: at `maxAccounts` the
 * accounts used longest ago are forgotten, and in an account the addresses written longest ago,
 * which costs each at most one early write. A use that writes nothing costs two map lookups.
 */
export class LastUsedTracker {
  readonly #intervalMs: number
  readonly #maxAddresses: number
  readonly #accounts: BoundedCache<string, AccountWrites>

  constructor(options: { intervalSeconds: number; maxAccounts: number; maxAddresses: number }) {
    this.#intervalMs = options.intervalSeconds * 1000
    this.#maxAddresses = options.maxAddresses
    this.#accounts = new BoundedCache({ max: options.maxAccounts })
  }

  /** What is due now; it is then counted as done (a failed write is not retried early). */
  claim(accountId: string, address: string, nowMs: number): UseClaim {
    let writes = this.#accounts.get(accountId)
    if (writes === undefined) {
      writes = { lastUsed: NEVER, address: undefined, addressAt: 0, addresses: undefined }
      this.#accounts.set(accountId, writes)
    }
    // Rounded up, so an interval is never cut short.
    const lastUsed = writes.lastUsed === NEVER || nowMs - writes.lastUsed >= this.#intervalMs
    if (lastUsed) writes.lastUsed = Math.ceil(nowMs)
    const seen =
      writes.addresses !== undefined
        ? writes.addresses.get(address)
        : writes.address === address
          ? writes.addressAt
          : undefined
    const fresh = seen === undefined || nowMs - seen >= this.#intervalMs
    if (fresh) this.#wrote(writes, address, Math.ceil(nowMs))
    if (lastUsed) return fresh ? 'both' : 'last_used'
    return fresh ? 'address' : 'none'
  }

  #wrote(writes: AccountWrites, address: string, atMs: number): void {
    if (writes.addresses === undefined) {
      if (writes.address === undefined || writes.address === address) {
        writes.address = address
        writes.addressAt = atMs
        return
      }
      writes.addresses = new Map([[writes.address, writes.addressAt]])
      writes.address = undefined
    }
    const addresses = writes.addresses
    addresses.delete(address)
    addresses.set(address, atMs)
    if (addresses.size <= this.#maxAddresses) return
    const [oldest] = addresses.keys()
    if (oldest !== undefined) addresses.delete(oldest)
  }
}
