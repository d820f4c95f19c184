/**
 * What went wrong with an outgoing connection, in words an operator can act on: the name does not
 * resolve (`dns`), nothing listens (`refused`), no route (`unreachable`), the peer closed or reset
 * it (`reset`), no answer in time (`timeout`), the TLS handshake failed (`tls`), or `other`. The
 * upstream's failures and the remote key set's fetches are both counted in these words.
 */
export const CONNECTION_FAILURES = [
  'dns',
  'refused',
  'unreachable',
  'reset',
  'timeout',
  'tls',
  'other',
] as const

export type ConnectionFailure = (typeof CONNECTION_FAILURES)[number]

const BY_CODE: Readonly<Record<string, ConnectionFailure>> = {
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EAI_NONAME: 'dns',
  EAI_NODATA: 'dns',
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  UND_ERR_SOCKET: 'reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  EPROTO: 'tls',
}

// OpenSSL's certificate and handshake errors, as Node names them.
const TLS_CODE = /CERT|^ERR_TLS|^ERR_SSL|SELF_SIGNED|UNABLE_TO_VERIFY|^ERR_OSSL/

/** Classifies an error of a connection attempt or exchange, looking through wrapping causes. */
export function classifyConnectionFailure(error: unknown): ConnectionFailure {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current.name === 'TimeoutError') return 'timeout'
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') {
      const known = BY_CODE[code]
      if (known !== undefined) return known
      if (TLS_CODE.test(code)) return 'tls'
    }
    current = current.cause
  }
  return 'other'
}
