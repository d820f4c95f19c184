import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import busboy from 'busboy'
import { ANONYMOUS, type Principal } from '../../../src/principal.js'
import { configSchema, type Config } from '../../../src/config/schema.js'
import { GatewayError } from '../../../src/errors.js'
import { IdentityEnforcer } from '../../../src/identity/identity-enforcer.js'
import type { PlanInput } from '../../../src/identity/identity-plan.js'
import type { RouteCatalogue } from '../../../src/policy/catalogue/route-catalogue.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import type { ForwardPlan } from '../../../src/upstream/forward-plan.js'
import {
  ClientBody,
  type BodyLimits,
  type ForwardedBody,
} from '../../../src/inbound/client-body.js'
import { buildUpstreamHeaders } from '../../../src/upstream/upstream-headers.js'

export {
  serviceAccountPrincipal as serviceAccount,
  SECURITY_KEY_PRINCIPAL as SECURITY_KEY,
} from '../../helpers/principals.js'

export { ANONYMOUS }

/** A full config as the loader would produce it from these sections. */
export function testConfig(sections: Record<string, unknown> = {}): Config {
  return configSchema.parse(sections) as Config
}

/** A plan with the body the upstream would receive: none when no pin read the body. */
export type PlannedRequest = ForwardPlan & { readonly body?: ForwardedBody | undefined }

/**
 * The enforcer as the gateway runs it: the request's body bounded by the config's limits (the
 * gateway gives them to the body it creates for each request), with the body as it would be
 * forwarded.
 */
export class TestEnforcer extends IdentityEnforcer {
  readonly #limits: BodyLimits

  constructor(config: Config, ...rest: OmitFirst<ConstructorParameters<typeof IdentityEnforcer>>) {
    super(config, ...rest)
    this.#limits = bodyLimitsOf(config)
  }

  override async plan(input: PlanInput): Promise<PlannedRequest> {
    const body =
      input.body === undefined
        ? undefined
        : new ClientBody(input.body.clientStream, input.headers, this.#limits)
    const plan = await super.plan({ ...input, body })
    const forwarded = body?.forwarded()
    // The plan itself when the body was not read: shared plans stay the same object.
    return forwarded === undefined ? plan : { ...plan, body: forwarded }
  }
}

type OmitFirst<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never

export function bodyLimitsOf(config: Config): BodyLimits {
  return { maxBytes: config.server.max_body_bytes, maxDepth: config.server.max_json_depth }
}

export function enforcer(
  sections: Record<string, unknown> = {},
  mode: 'jwt' | 'security_key' | 'none' = 'jwt',
): TestEnforcer {
  return new TestEnforcer(testConfig(sections), mode)
}

export function jwtUser(
  userId: string | null,
  scopes: string[] = [],
  extra: Partial<Principal> = {},
): Principal {
  return {
    kind: 'jwt',
    authenticated: true,
    userId,
    sessionId: null,
    scopes,
    authorizationEnabled: true,
    expiresAt: null,
    ...extra,
  }
}

export const ADMIN = jwtUser('root', ['os:admin'])

export interface RequestSpec {
  principal?: Principal
  method?: string
  path?: string
  query?: string
  headers?: IncomingHttpHeaders
  body?: string | Buffer | Readable
  accessibleIds?: ReadonlySet<string> | 'all'
  /** The AgentOS line's catalogue the request is matched in; 2.9 unless given. */
  catalogue?: RouteCatalogue
}

const CATALOGUE_2_9 = testCatalogue()

/** Content-Length is added for string and Buffer bodies, as a client would send it. */
export function planInput(spec: RequestSpec): PlanInput & { readonly body: ClientBody } {
  const raw = spec.body
  const headers: IncomingHttpHeaders = { ...spec.headers }
  if (
    raw !== undefined &&
    !(raw instanceof Readable) &&
    headers['transfer-encoding'] === undefined
  ) {
    headers['content-length'] ??= String(Buffer.byteLength(raw))
  }
  const stream =
    raw instanceof Readable ? raw : Readable.from(raw === undefined ? [] : [Buffer.from(raw)])
  const body = new ClientBody(stream, headers, bodyLimitsOf(testConfig()))
  const method = spec.method ?? 'GET'
  const path = spec.path ?? '/'
  return {
    principal: spec.principal ?? ANONYMOUS,
    method,
    path,
    route: (spec.catalogue ?? CATALOGUE_2_9).match(method, path),
    query: spec.query ?? '',
    headers,
    body,
    ...(spec.accessibleIds !== undefined && { accessibleIds: spec.accessibleIds }),
  }
}

/** What the upstream receives of a client's raw headers under `plan`, as lowercase name → value. */
export function sentUpstream(plan: PlannedRequest, rawHeaders: string[]): Record<string, string> {
  const options = {
    identityPrefixes: ['x-auth-'],
    identityNames: new Set<string>(),
    preserveHost: false,
    upstreamHost: 'upstream:8000',
  }
  const client = { peer: '127.0.0.1', peerTrusted: false, requestId: 'r-1' }
  const flat = buildUpstreamHeaders(rawHeaders, options, client, plan, plan.body)
  const sent: Record<string, string> = {}
  for (let index = 0; index < flat.length; index += 2) {
    sent[(flat[index] as string).toLowerCase()] = flat[index + 1] as string
  }
  return sent
}

export async function bodyText(plan: PlannedRequest): Promise<string | undefined> {
  const body = plan.body?.content
  if (body === undefined) return undefined
  return Buffer.isBuffer(body) ? body.toString('latin1') : (await readAll(body)).toString('latin1')
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** Runs `fn` and returns the GatewayError it throws. */
export async function refusal(fn: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await fn()
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a GatewayError, nothing was thrown')
}

export interface ParsedPart {
  name: string
  value?: string
  filename?: string
  mimeType?: string
  data?: Buffer
}

/** Parses multipart bytes in order, as a second, independent reader of our output. */
export async function parseMultipart(
  body: Readable | Buffer,
  contentType: string,
): Promise<ParsedPart[]> {
  const parts: ParsedPart[] = []
  // latin1: values come back as byte strings, so tests can compare bytes.
  const parser = busboy({
    headers: { 'content-type': contentType },
    preservePath: true,
    defCharset: 'latin1',
  })
  const files: Promise<void>[] = []
  parser.on('field', (name, value) => parts.push({ name, value }))
  parser.on('file', (name, stream: Readable, info) => {
    const part: ParsedPart = { name, filename: info.filename, mimeType: info.mimeType }
    parts.push(part)
    files.push(readAll(stream).then((data) => void (part.data = data)))
  })
  const finished = new Promise<void>((resolve, reject) => {
    parser.on('close', resolve)
    parser.on('error', reject)
  })
  ;(Buffer.isBuffer(body) ? Readable.from([body]) : body).pipe(parser)
  await finished
  await Promise.all(files)
  return parts
}

export function multipartBody(
  boundary: string,
  parts: readonly (readonly [string, string])[],
): string {
  return (
    parts.map(([head, value]) => `--${boundary}\r\n${head}\r\n\r\n${value}\r\n`).join('') +
    `--${boundary}--\r\n`
  )
}

export const field = (name: string): string => `Content-Disposition: form-data; name="${name}"`
