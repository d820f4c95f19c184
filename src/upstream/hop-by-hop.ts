/** Hop-by-hop fields (RFC 9110 §7.6.1, plus the legacy ones proxies still see); never forwarded. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
])

/** The lowercased field names a `Connection` header lists, which are hop-by-hop too (RFC 9110 §7.6.1). */
export function connectionListed(value: string | string[] | undefined): Set<string> | undefined {
  // What nearly every upstream sends: nothing beyond the fields above.
  if (value === undefined || value === 'keep-alive' || value === 'close') return undefined
  const listed = new Set<string>()
  for (const part of (Array.isArray(value) ? value.join(',') : value).split(',')) {
    const name = part.trim().toLowerCase()
    if (name !== '' && name !== 'close' && name !== 'keep-alive') listed.add(name)
  }
  return listed.size > 0 ? listed : undefined
}
