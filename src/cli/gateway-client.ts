/** Where a CLI command reaches a running gateway, and with which credential. */
export interface GatewayTarget {
  readonly url: string
  readonly credential: string
}

export class CliError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CliError'
  }
}

/**
 * The admin credential, as AgentOS's `agno tokens` finds it: PORTCULLIS_ADMIN_TOKEN (a JWT or
 * service-account token able to manage accounts), else OS_SECURITY_KEY.
 */
export function resolveTarget(url: string | undefined, env: NodeJS.ProcessEnv): GatewayTarget {
  const credential = env.PORTCULLIS_ADMIN_TOKEN ?? env.OS_SECURITY_KEY
  if (credential === undefined || credential === '') {
    throw new CliError(
      'set PORTCULLIS_ADMIN_TOKEN (or OS_SECURITY_KEY) to a credential that may manage service accounts',
    )
  }
  const base = url ?? env.PORTCULLIS_URL ?? 'http://127.0.0.1:8080'
  return { url: base.replace(/\/+$/, ''), credential }
}

export interface JsonResponse {
  readonly status: number
  readonly body: unknown
}

/** Calls `/service-accounts…` on the gateway; 401/403 become one clear message. */
export async function callGateway(
  target: GatewayTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonResponse> {
  let response: Response
  try {
    response = await fetch(`${target.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${target.credential}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  } catch (error) {
    throw new CliError(`cannot reach the gateway at ${target.url} (${(error as Error).message})`)
  }
  const text = await response.text()
  const parsed: unknown = text === '' ? undefined : safeJson(text)
  if (response.status === 401 || response.status === 403) {
    throw new CliError(
      `the gateway rejected the admin credential (${response.status}: ${detailOf(parsed)})`,
    )
  }
  return { status: response.status, body: parsed }
}

/**
 * An error body in words, on one line: its `detail` text, or, for a 422's list of validation
 * problems, the first one (`name: String should have at most 63 characters`) and how many more.
 */
export function detailOf(body: unknown): string {
  if (typeof body === 'object' && body !== null && 'detail' in body) {
    const detail: unknown = body.detail
    if (typeof detail === 'string') return detail
    const [first, ...rest] = Array.isArray(detail) ? (detail as unknown[]) : []
    if (isIssue(first)) {
      const more =
        rest.length === 0 ? '' : ` (and ${rest.length} more problem(s); --json lists all)`
      return `${describeIssue(first)}${more}`
    }
    return JSON.stringify(detail)
  }
  return body === undefined ? '(no body)' : JSON.stringify(body)
}

/** A FastAPI/pydantic validation problem: `{loc, msg, input?}`. */
interface Issue {
  readonly loc: readonly (string | number)[]
  readonly msg: string
  readonly input?: unknown
}

function isIssue(value: unknown): value is Issue {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Partial<Issue>).loc) &&
    typeof (value as Partial<Issue>).msg === 'string'
  )
}

/** `scopes.0.effect: Input should be 'allow' or 'deny' (got "maybe")`. */
function describeIssue(issue: Issue): string {
  const [origin, ...path] = issue.loc
  const located = (origin === 'body' || origin === 'query') && path.length > 0
  const where = (located ? path : issue.loc).join('.')
  const text = issue.msg.replace(/^Value error, /, '')
  const input = issue.input
  const got =
    typeof input === 'string' || typeof input === 'number' || typeof input === 'boolean'
      ? ` (got ${JSON.stringify(input)})`
      : ''
  // A message that names its field already (`name must be a lowercase slug…`) needs no prefix.
  const prefix = text.startsWith(`${where} `) ? '' : `${where}: `
  return `${prefix}${text}${got}`
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
