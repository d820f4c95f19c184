import { isIP } from 'node:net'

/** `localhost`, `*.localhost`, 127.0.0.0/8 and ::1: where plain http cannot be intercepted. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return isIP(host) === 6 && (host === '::1' || /^::ffff:127\./.test(host))
}
