import type { IncomingHttpHeaders } from 'node:http'

export interface HostRefusal {
  readonly error: 'invalid_host' | 'invalid_origin'
  readonly detail: string
}

const LOCALHOST = ['127.0.0.1', 'localhost', '[::1]']

/** A Host value without its port; IPv6 brackets kept. */
export function hostnameOf(host: string): string {
  const value = host.trim().toLowerCase()
  if (value.startsWith('[')) {
    const end = value.indexOf(']')
    return end === -1 ? value : value.slice(0, end + 1)
  }
  return value.split(':', 1)[0] ?? ''
}

function originHostname(origin: string): string {
  try {
    return new URL(origin).hostname.toLowerCase()
  } catch {
    return ''
  }
}

/**
 * AgentOS's DNS-rebinding guard on its MCP app (MCP-6): active when the server is open
 * or allowed hosts are configured; Host must be localhost or allowed (`*.suffix` patterns), and
 * a present Origin must be allowed or have an allowed host. Refusals are 400.
 */
export class McpHostGuard {
  readonly #active: boolean
  readonly #hosts: ReadonlySet<string>
  readonly #origins: ReadonlySet<string>

  constructor(options: {
    open: boolean
    allowedHosts: readonly string[] | null
    allowedOrigins: readonly string[]
  }) {
    this.#active = options.open || options.allowedHosts !== null
    this.#hosts = new Set([...(options.allowedHosts ?? []), ...LOCALHOST].map(hostnameOf))
    this.#origins = new Set(options.allowedOrigins)
  }

  check(headers: IncomingHttpHeaders): HostRefusal | undefined {
    if (!this.#active) return undefined
    if (!this.#allowed(hostnameOf(headers.host ?? ''))) {
      return { error: 'invalid_host', detail: 'Host not allowed.' }
    }
    const origin = headers.origin
    if (
      origin !== undefined &&
      !this.#origins.has(origin) &&
      !this.#allowed(originHostname(origin))
    ) {
      return { error: 'invalid_origin', detail: 'Origin not allowed.' }
    }
    return undefined
  }

  #allowed(hostname: string): boolean {
    if (hostname === '') return false
    if (this.#hosts.has(hostname)) return true
    for (const pattern of this.#hosts) {
      if (pattern.startsWith('*.') && hostname.endsWith(pattern.slice(1))) return true
    }
    return false
  }
}
