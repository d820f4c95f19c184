import type { ReasonFor } from './reasons.js'

/**
 * Every failure the gateway answers itself has a typed code. This file is the one place that maps
 * a code to an HTTP status (and a 401 to its challenge); the compiler refuses a code without a
 * mapping.
 */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'INVALID_PATH'
  | 'UNSUPPORTED_UPGRADE'
  | 'CREDENTIALS_MISSING'
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED'
  | 'SERVICE_ACCOUNTS_DISABLED'
  | 'ACCESS_DENIED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'VALIDATION_FAILED'
  | 'THROTTLED'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL'
  | 'UPSTREAM_UNAVAILABLE'
  | 'AUTH_UNAVAILABLE'
  | 'STORE_UNAVAILABLE'
  | 'OVER_CAPACITY'
  | 'AGENTOS_UNKNOWN'
  | 'UPSTREAM_TIMEOUT'

/**
 * RFC 6750 §3.1: a request without any credential gets a bare `Bearer` challenge (no error code);
 * a presented token that was refused (expired, revoked, malformed, unknown) gets
 * `error="invalid_token"`.
 */
type Challenge = 'credentials_missing' | 'invalid_token'

interface ErrorResponse {
  readonly status: number
  /** false: the client gets a generic text, the detail goes to logs only. */
  readonly expose: boolean
  /** The `WWW-Authenticate` challenge of a 401. */
  readonly challenge?: Challenge
}

export const RESPONSES: Readonly<Record<ErrorCode, ErrorResponse>> = {
  BAD_REQUEST: { status: 400, expose: true },
  INVALID_PATH: { status: 400, expose: true },
  UNSUPPORTED_UPGRADE: { status: 400, expose: true },
  CREDENTIALS_MISSING: { status: 401, expose: true, challenge: 'credentials_missing' },
  TOKEN_INVALID: { status: 401, expose: true, challenge: 'invalid_token' },
  TOKEN_EXPIRED: { status: 401, expose: true, challenge: 'invalid_token' },
  SERVICE_ACCOUNTS_DISABLED: { status: 401, expose: true, challenge: 'invalid_token' },
  ACCESS_DENIED: { status: 403, expose: true },
  NOT_FOUND: { status: 404, expose: true },
  METHOD_NOT_ALLOWED: { status: 405, expose: true },
  CONFLICT: { status: 409, expose: true },
  PAYLOAD_TOO_LARGE: { status: 413, expose: true },
  VALIDATION_FAILED: { status: 422, expose: true },
  THROTTLED: { status: 429, expose: true },
  HEADERS_TOO_LARGE: { status: 431, expose: true },
  INTERNAL: { status: 500, expose: false },
  UPSTREAM_UNAVAILABLE: { status: 502, expose: true },
  AUTH_UNAVAILABLE: { status: 503, expose: true },
  STORE_UNAVAILABLE: { status: 503, expose: true },
  OVER_CAPACITY: { status: 503, expose: true },
  AGENTOS_UNKNOWN: { status: 503, expose: true },
  UPSTREAM_TIMEOUT: { status: 504, expose: true },
}

/** FastAPI's validation error item, kept for 422 bodies that AgentOS clients parse. */
export interface ValidationIssue {
  type: string
  loc: (string | number)[]
  msg: string
  input?: unknown
  ctx?: Record<string, unknown>
}

export type ErrorDetail = string | ValidationIssue[]

export interface GatewayErrorOptions<C extends ErrorCode = ErrorCode> {
  /**
   * Internal reason for logs and metrics (`jwt.signature`), never sent to the client: one the
   * reason table answers with this code.
   */
  reason: ReasonFor<C>
  cause?: unknown
  /** Extra response headers, such as `Retry-After`. */
  headers?: Record<string, string>
}

/**
 * Error's prototype without Error's constructor, the way @fastify/error builds its errors: what
 * extends it is an Error to every reader (instanceof, name, message, cause) but captures a stack
 * trace only when asked to. (Setting `Error.stackTraceLimit` around `super()` would change it for
 * the whole process while the constructor runs.)
 */
function ErrorWithoutStack(this: Error, message: string, options?: ErrorOptions): void {
  Object.defineProperty(this, 'message', { value: message, writable: true, configurable: true })
  if (options?.cause !== undefined) {
    Object.defineProperty(this, 'cause', {
      value: options.cause,
      writable: true,
      configurable: true,
    })
  }
}
ErrorWithoutStack.prototype = Error.prototype

export class GatewayError<
  out C extends ErrorCode = ErrorCode,
> extends (ErrorWithoutStack as unknown as ErrorConstructor) {
  readonly code: C
  readonly detail: ErrorDetail
  readonly reason: ReasonFor<C>
  readonly headers: Readonly<Record<string, string>>

  constructor(code: C, detail: ErrorDetail, options: GatewayErrorOptions<C>) {
    super(typeof detail === 'string' ? detail : code, { cause: options.cause })
    // A refusal (4xx) is an answer, not a fault: capturing its stack cost about 5 µs, on every
    // 401, 403 and 429 a flood of bad requests makes the gateway give. A fault keeps its stack.
    if (RESPONSES[code].status >= 500) Error.captureStackTrace(this, GatewayError)
    this.code = code
    this.detail = detail
    this.reason = options.reason
    this.headers = options.headers ?? {}
  }

  get status(): number {
    return RESPONSES[this.code].status
  }

  #bodyText: string | undefined
  #bodyBytes: Buffer | undefined
  #answerFields: readonly string[] | undefined

  /** The JSON text of `errorBody`, made once: a prepared refusal answers many requests. */
  get bodyText(): string {
    return (this.#bodyText ??= JSON.stringify(errorBody(this)))
  }

  /** `bodyText` encoded, made once. */
  get bodyBytes(): Buffer {
    return (this.#bodyBytes ??= Buffer.from(this.bodyText))
  }

  /**
   * The answer's own fields as one flat list (`errorHeaders`, then its JSON type and length),
   * made once: written with the body in one `writeHead`, where each field set on the response
   * one by one went into a fresh dictionary-mode object of Node's (about 2,000 instructions a
   * field).
   */
  get answerFields(): readonly string[] {
    if (this.#answerFields !== undefined) return this.#answerFields
    const fields: string[] = []
    const headers = errorHeaders(this)
    for (const name in headers) fields.push(name, headers[name] as string)
    fields.push('content-type', 'application/json', 'Content-Length', String(this.bodyBytes.length))
    return (this.#answerFields = Object.freeze(fields))
  }
}
GatewayError.prototype.name = 'GatewayError'

/**
 * The `WWW-Authenticate` value of a 401 (RFC 6750 §3), with extra auth-params first (the MCP
 * interface's `resource_metadata`); undefined for other statuses.
 */
export function bearerChallenge(
  code: ErrorCode,
  params?: Readonly<Record<string, string>>,
): string | undefined {
  const challenge = RESPONSES[code].challenge
  if (challenge === undefined) return undefined
  if (params === undefined) return challenge === 'invalid_token' ? INVALID_TOKEN : 'Bearer'
  const all = challenge === 'invalid_token' ? { ...params, error: 'invalid_token' } : params
  const list = Object.entries(all).map(([name, value]) => `${name}="${value}"`)
  return list.length === 0 ? 'Bearer' : `Bearer ${list.join(', ')}`
}

const INVALID_TOKEN = 'Bearer error="invalid_token"'

/**
 * The headers an error response carries: its challenge (a 401), then the error's own headers
 * (`Retry-After`; a challenge of its own replaces the default).
 */
export function errorHeaders(error: GatewayError): Record<string, string> {
  const challenge = bearerChallenge(error.code)
  return challenge === undefined
    ? { ...error.headers }
    : { 'WWW-Authenticate': challenge, ...error.headers }
}

/** The JSON body a client receives for an error; unexposed codes get a generic text. */
export function errorBody(error: GatewayError): { detail: ErrorDetail } {
  return { detail: RESPONSES[error.code].expose ? error.detail : 'Internal Server Error' }
}

/** A GatewayError of any code (`instanceof` alone narrows to one of an unknown code). */
export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError
}

/** Wraps anything thrown into a GatewayError; unknown errors become INTERNAL. */
export function toGatewayError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error
  return new GatewayError('INTERNAL', 'Internal Server Error', { cause: error, reason: 'internal' })
}
