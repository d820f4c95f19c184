import { rootCertificates } from 'node:tls'
import { Agent, request } from 'undici'
import {
  BlockedAddressError,
  ipLiteral,
  isNonPublicAddress,
  publicOnlyLookup,
} from './address-policy.js'
import { isLoopbackHost } from '../../../config/loopback-host.js'
import { classifyConnectionFailure } from '../../../connection-failure.js'
import { KeyFetchError } from './fetch-errors.js'
import { providerLifetime } from './freshness.js'

/** What may be fetched, and how much: `auth.jwks_*` settings. */
export interface HttpPolicy {
  readonly timeoutMs: number
  readonly maxBytes: number
  readonly allowHttp: boolean
  readonly allowPrivateAddresses: boolean
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots. */
  readonly ca: string | undefined
}

export interface DocumentResponse {
  /** 304: the document is the one named by the ETag that was sent. */
  readonly status: 200 | 304
  readonly body: string
  readonly etag: string | undefined
  /** Seconds the provider says the document stays fresh (Cache-Control), if it says. */
  readonly lifetimeSeconds: number | undefined
}

const MAX_REDIRECTS = 3
const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * GET for identity-provider documents, hardened against a hostile or broken endpoint: one deadline
 * for the whole exchange, a size cap enforced while reading, redirects only within the same host
 * and never from https to http, plain http only where the policy allows it, and (unless allowed)
 * no connection to a loopback, private or link-local address, checked on the resolved address.
 */
export class GuardedHttpClient {
  readonly #policy: HttpPolicy
  readonly #agent: Agent

  constructor(policy: HttpPolicy) {
    this.#policy = policy
    this.#agent = new Agent({
      connect: {
        timeout: policy.timeoutMs,
        ...(policy.ca === undefined ? {} : { ca: [...rootCertificates, policy.ca] }),
        ...(policy.allowPrivateAddresses ? {} : { lookup: publicOnlyLookup }),
      },
      headersTimeout: policy.timeoutMs,
      bodyTimeout: policy.timeoutMs,
      keepAliveTimeout: 30_000,
      connections: 2,
    })
  }

  /** Fetches `url`; with `etag`, conditionally. Throws KeyFetchError. */
  async get(url: URL, etag?: string): Promise<DocumentResponse> {
    const deadline = AbortSignal.timeout(this.#policy.timeoutMs)
    let current = url
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      this.#checkTarget(current)
      let response: Awaited<ReturnType<typeof request>>
      try {
        response = await request(current, {
          method: 'GET',
          dispatcher: this.#agent,
          signal: deadline,
          headers: {
            accept: 'application/jwk-set+json, application/json',
            ...(etag === undefined ? {} : { 'if-none-match': etag }),
          },
        })
      } catch (error) {
        throw classify(error, current, this.#policy.timeoutMs)
      }
      const { statusCode, headers } = response
      if (REDIRECTS.has(statusCode)) {
        await response.body.dump()
        current = this.#redirectTarget(current, header(headers, 'location'))
        continue
      }
      const lifetimeSeconds = providerLifetime(
        header(headers, 'cache-control'),
        header(headers, 'age'),
      )
      if (statusCode === 304 && etag !== undefined) {
        await response.body.dump()
        return { status: 304, body: '', etag, lifetimeSeconds }
      }
      if (statusCode !== 200) {
        await response.body.dump()
        throw new KeyFetchError('http_status', `${describe(current)} answered ${statusCode}`)
      }
      const body = await this.#readBody(response.body, current, header(headers, 'content-length'))
      return { status: 200, body, etag: header(headers, 'etag'), lifetimeSeconds }
    }
    throw new KeyFetchError('blocked', `${describe(url)}: more than ${MAX_REDIRECTS} redirects`)
  }

  close(): Promise<void> {
    return this.#agent.close()
  }

  #checkTarget(url: URL): void {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new KeyFetchError('blocked', `${describe(url)}: only https is fetched`)
    }
    if (url.protocol === 'http:' && !this.#policy.allowHttp && !isLoopbackHost(url.hostname)) {
      throw new KeyFetchError(
        'blocked',
        `${describe(url)}: plain http is fetched only from a loopback host (auth.jwks_allow_http)`,
      )
    }
    const literal = ipLiteral(url.hostname)
    if (
      !this.#policy.allowPrivateAddresses &&
      literal !== undefined &&
      isNonPublicAddress(literal)
    ) {
      throw new KeyFetchError(
        'blocked',
        `${describe(url)}: ${literal} is not a public address (auth.jwks_allow_private_addresses)`,
      )
    }
  }

  #redirectTarget(from: URL, location: string | undefined): URL {
    if (location === undefined || !URL.canParse(location, from.href)) {
      throw new KeyFetchError('http_status', `${describe(from)} redirected without a Location`)
    }
    const to = new URL(location, from)
    if (to.host !== from.host) {
      throw new KeyFetchError(
        'blocked',
        `${describe(from)} redirected to another host (${to.host}); redirects are followed only within one host`,
      )
    }
    if (from.protocol === 'https:' && to.protocol !== 'https:') {
      throw new KeyFetchError(
        'blocked',
        `${describe(from)} redirected from https to ${to.protocol}`,
      )
    }
    return to
  }

  async #readBody(
    body: AsyncIterable<Buffer> & { destroy(): unknown },
    url: URL,
    contentLength: string | undefined,
  ): Promise<string> {
    const limit = this.#policy.maxBytes
    const tooLarge = () =>
      new KeyFetchError(
        'too_large',
        `${describe(url)}: the document is larger than auth.jwks_max_bytes (${limit})`,
      )
    if (contentLength !== undefined && Number(contentLength) > limit) {
      body.destroy()
      throw tooLarge()
    }
    const chunks: Buffer[] = []
    let size = 0
    try {
      for await (const chunk of body) {
        size += chunk.length
        if (size > limit) {
          body.destroy()
          throw tooLarge()
        }
        chunks.push(chunk)
      }
    } catch (error) {
      if (error instanceof KeyFetchError) throw error
      throw classify(error, url, this.#policy.timeoutMs)
    }
    return Buffer.concat(chunks).toString('utf8')
  }
}

function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/** The URL without its query (which may carry a tenant parameter, never worth logging whole). */
function describe(url: URL): string {
  return `${url.origin}${url.pathname}`
}

function classify(error: unknown, url: URL, timeoutMs: number): KeyFetchError {
  if (error instanceof KeyFetchError) return error
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined
  const found = [error, cause].find((candidate) => candidate instanceof BlockedAddressError)
  if (found instanceof BlockedAddressError) {
    return new KeyFetchError('blocked', `${describe(url)}: ${found.message}`)
  }
  const code = errorCode(error) ?? errorCode(cause) ?? ''
  // The deadline of the whole fetch aborts it.
  const failure =
    error instanceof Error && error.name === 'AbortError'
      ? 'timeout'
      : classifyConnectionFailure(error)
  if (failure === 'timeout') {
    return new KeyFetchError(
      'timeout',
      `${describe(url)}: no complete answer within ${timeoutMs} ms`,
    )
  }
  if (failure === 'tls') {
    return new KeyFetchError('tls', `${describe(url)}: TLS verification failed (${code})`, {
      cause: error,
    })
  }
  return new KeyFetchError(
    failure,
    `${describe(url)}: ${code === '' ? 'the request failed' : `the request failed (${code})`}`,
    { cause: error },
  )
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? code : undefined
}
