import { isIPv4, isIPv6 } from 'node:net'

/**
 * The throttle's key for a client address. IPv6 clients are grouped by /64, the smallest block a
 * site is usually given, so rotating through its addresses gains nothing; IPv4-mapped IPv6
 * (`::ffff:a.b.c.d`, as dual-stack sockets report IPv4 peers) counts as the IPv4 address.
 */
export function throttleKey(address: string): string {
  // The socket's own form of an IPv4 peer, the usual case, is its key as it is.
  if (isIPv4(address)) return address
  const bare = address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  const withoutZone = bare.split('%')[0] ?? ''
  if (isIPv4(withoutZone)) return withoutZone
  if (!isIPv6(withoutZone)) return bare === '' ? 'unknown' : bare
  const groups = ipv6Groups(withoutZone)
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6)
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.')
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (validated by the caller). */
function ipv6Groups(address: string): number[] {
  let text = address
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number)
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16))
  const front = parse(head)
  const back = tail === undefined ? [] : parse(tail)
  const zeros = new Array<number>(8 - front.length - back.length).fill(0)
  return [...front, ...zeros, ...back]
}
