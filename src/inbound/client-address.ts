import { BlockList, isIP } from 'node:net'
import { BoundedCache } from '../bounded-cache.js'

/** Peers whose X-Forwarded-* headers are believed (server.trusted_proxies). */
export class TrustedProxies {
  readonly #list = new BlockList()
  readonly #empty: boolean
  // BlockList.check builds a SocketAddress per call; a gateway sees few distinct peers.
  readonly #answers = new BoundedCache<string, boolean>({ max: 4_096 })

  constructor(entries: readonly string[]) {
    this.#empty = entries.length === 0
    for (const entry of entries) {
      const [address = '', bits] = entry.split('/')
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4'
      if (bits === undefined) this.#list.addAddress(address, type)
      else this.#list.addSubnet(address, Number(bits), type)
    }
  }

  has(address: string): boolean {
    if (this.#empty) return false
    return this.#answers.get(address) ?? this.#answers.remember(address, this.#check(address))
  }

  #check(address: string): boolean {
    const family = isIP(address)
    return family !== 0 && this.#list.check(address, family === 6 ? 'ipv6' : 'ipv4')
  }
}

/** `::ffff:10.0.0.1` is the IPv4 peer 10.0.0.1 on a dual-stack socket. */
export function normalizeAddress(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown'
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address
}

/**
 * The client's address: the socket peer, or, when the peer is a trusted proxy, the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function resolveClientAddress(
  peer: string,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  if (forwardedFor === undefined || !trusted.has(peer)) return peer
  if (typeof forwardedFor === 'string' && !forwardedFor.includes(',')) {
    // One hop, as a single proxy in front sends it: the list's walk without a list to split.
    const hop = normalizeAddress(forwardedFor.trim())
    return isIP(hop) === 0 ? peer : hop
  }
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',')
  let client = peer
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = normalizeAddress((hops[index] as string).trim())
    // An entry that is not an address cannot be reasoned about: stop at the last hop we trust.
    if (isIP(hop) === 0) return client
    client = hop
    if (!trusted.has(hop)) return hop
  }
  return client
}
