import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP } from 'node:net'

/**
 * Addresses a key fetch must not reach unless `auth.jwks_allow_private_addresses` is on: loopback,
 * private, shared (CGNAT), link-local (cloud metadata at 169.254.169.254), unique-local,
 * multicast, reserved and unspecified ranges. IPv4-mapped IPv6 addresses are checked as IPv4
 * (BlockList does that itself).
 */
const NON_PUBLIC = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6')
}

/** Whether an IP address literal is outside the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  return NON_PUBLIC.check(address, family === 6 ? 'ipv6' : 'ipv4')
}

/** A URL hostname as an IP literal (brackets removed), or undefined for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const host = hostname.replace(/^\[|\]$/g, '')
  return isIP(host) === 0 ? undefined : host
}

export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError'
  readonly code = 'EBLOCKEDADDRESS'
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/**
 * A `lookup` for net/tls connect that refuses a name resolving to any non-public address. Checked
 * on the address actually connected to, so a DNS answer that changes between a check and the
 * connection (rebinding) cannot slip through.
 */
export function publicOnlyLookup(
  hostname: string,
  options: { all?: boolean; family?: number; hints?: number },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) {
      callback(error, [])
      return
    }
    const blocked = addresses.find((entry) => isNonPublicAddress(entry.address))
    if (blocked !== undefined) {
      callback(
        new BlockedAddressError(
          `${hostname} resolves to the non-public address ${blocked.address} (set auth.jwks_allow_private_addresses to allow it)`,
        ),
        [],
      )
      return
    }
    if (options.all === true) {
      callback(null, addresses)
      return
    }
    const first = addresses[0]
    if (first === undefined) {
      callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), [])
      return
    }
    callback(null, first.address, first.family)
  })
}
