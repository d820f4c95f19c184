/** The handler-checks stage without sockets: a 3.0 catalogue, a fake upstream, owners in memory. */
import { Readable } from 'node:stream'
import { GatewayError } from '../../../../src/errors.js'
import type { LocalAnswer, StageRequest } from '../../../../src/http/stage.js'
import { createLogger } from '../../../../src/logger.js'
import type { OwnedResource } from '../../../../src/policy/catalogue/route-facts.js'
import { Grants } from '../../../../src/policy/grants.js'
import type { Principal } from '../../../../src/principal.js'
import type {
  RecordedOwner,
  ResourceOwners,
} from '../../../../src/service-accounts/resource-owners.js'
import type { UpstreamLookup } from '../../../../src/surfaces/common/upstream-lookup.js'
import {
  handlerChecksStage,
  type HandlerChecksDeps,
} from '../../../../src/surfaces/handlers/index.js'
import { PASS_THROUGH, type ForwardPlan } from '../../../../src/upstream/forward-plan.js'
import { ClientBody, type ForwardedBody } from '../../../../src/inbound/client-body.js'
import type { BufferedResponse } from '../../../../src/upstream/upstream-client.js'
import { testCatalogue } from '../../../helpers/catalogue.js'
import { inboundRequest } from '../../../helpers/inbound.js'
import { LogCapture } from '../../../helpers/log-capture.js'

export const ADMIN = 'os:admin'
export const CATALOGUE_3_0 = testCatalogue({ line: '3.0' })

/** The owner records in memory, first writer wins; `failing` makes every call throw. */
export class MemoryOwners implements ResourceOwners {
  readonly #rows = new Map<string, string | null>()
  failing = false

  async record(kind: OwnedResource, id: string, owner: string | null): Promise<string | null> {
    this.#check()
    const key = `${kind}/${id}`
    if (!this.#rows.has(key)) this.#rows.set(key, owner)
    return this.#rows.get(key) ?? null
  }

  async ownerOf(kind: OwnedResource, id: string): Promise<RecordedOwner> {
    this.#check()
    const key = `${kind}/${id}`
    return this.#rows.has(key)
      ? { known: true, owner: this.#rows.get(key) ?? null }
      : { known: false }
  }

  async ownersOf(
    kind: OwnedResource,
    ids: readonly string[],
  ): Promise<ReadonlyMap<string, string | null>> {
    this.#check()
    const found = new Map<string, string | null>()
    for (const id of ids) {
      const key = `${kind}/${id}`
      if (this.#rows.has(key)) found.set(id, this.#rows.get(key) ?? null)
    }
    return found
  }

  async forget(kind: OwnedResource, id: string): Promise<boolean> {
    this.#check()
    return this.#rows.delete(`${kind}/${id}`)
  }

  #check(): void {
    if (this.failing) throw new Error('store down')
  }
}

/** Answers lookups by path (query included when a key has one), recording every call. */
export function fakeLookup(answers: Record<string, { status: number; value?: unknown }>) {
  const calls: string[] = []
  const lookup: UpstreamLookup = async (path) => {
    calls.push(path)
    const answer = answers[path] ?? answers[path.split('?')[0] ?? '']
    if (answer === undefined) {
      throw new GatewayError('UPSTREAM_UNAVAILABLE', 'down', { reason: 'upstream.refused' })
    }
    return { status: answer.status, value: answer.value }
  }
  return { lookup, calls }
}

export interface StageSetup {
  readonly owners?: ResourceOwners | undefined
  readonly lookup?: UpstreamLookup
  readonly userIsolation?: boolean
}

export function stageDeps(setup: StageSetup = {}) {
  const logs = new LogCapture()
  const deps: HandlerChecksDeps = {
    grants: new Grants(ADMIN),
    userIsolation: setup.userIsolation ?? true,
    scheduleOwnerHeader: true,
    owners: 'owners' in setup ? setup.owners : new MemoryOwners(),
    lookup: setup.lookup ?? fakeLookup({}).lookup,
    logger: createLogger({ level: 'debug', destination: logs }),
    now: () => 1_700_000_000,
  }
  return { deps, logs }
}

export interface RequestInput {
  readonly method: string
  /** Path and query. */
  readonly target: string
  readonly principal: Principal
  readonly body?: string | Buffer
  readonly contentType?: string
  readonly headers?: readonly string[]
}

export function stageRequest(input: RequestInput, catalogue = CATALOGUE_3_0): StageRequest {
  const [path = '/', query = ''] = input.target.split('?')
  const body = input.body === undefined ? undefined : Buffer.from(input.body as string | Uint8Array)
  const rawHeaders = [
    'Host',
    'gateway.example',
    ...(input.contentType === undefined ? [] : ['Content-Type', input.contentType]),
    ...(body === undefined ? [] : ['Content-Length', String(body.length)]),
    ...(input.headers ?? []),
  ]
  const inbound = inboundRequest({
    method: input.method,
    path,
    forwardPath: path,
    query,
    rawHeaders,
  })
  const stream = Readable.from(body === undefined ? [] : [body])
  return {
    inbound,
    route: catalogue.match(input.method, path),
    principal: input.principal,
    body: new ClientBody(stream, inbound.headers, { maxBytes: 65_536, maxDepth: 32 }),
  }
}

/** A JSON request. */
export function jsonRequest(
  method: string,
  target: string,
  principal: Principal,
  value?: unknown,
): StageRequest {
  return stageRequest({
    method,
    target,
    principal,
    ...(value === undefined
      ? {}
      : { body: JSON.stringify(value), contentType: 'application/json' }),
  })
}

/** A plan with the body the upstream would receive, when a step read the body. */
export type PlannedRequest = ForwardPlan & { readonly body?: ForwardedBody }

/**
 * Runs the stage on a request, from the pass-through plan; the plan itself when the body was
 * not read, else with the body as it would be forwarded.
 */
export async function runStage(
  deps: HandlerChecksDeps,
  request: StageRequest,
  plan: ForwardPlan = PASS_THROUGH,
): Promise<PlannedRequest> {
  const outcome: ForwardPlan | LocalAnswer = await handlerChecksStage(deps).plan(request, plan)
  if ('status' in outcome) throw new Error('the stage answered locally')
  const body = request.body.forwarded()
  return body === undefined ? outcome : { ...outcome, body }
}

export function jsonResponse(value: unknown, status = 200): BufferedResponse {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(value)),
  }
}

/** The body a plan forwards, read whole (buffered or streamed). */
export async function plannedBody(plan: PlannedRequest): Promise<string> {
  const content = plan.body?.content
  if (content === undefined) throw new Error('no body planned')
  if (Buffer.isBuffer(content)) return content.toString('utf8')
  const chunks: Buffer[] = []
  for await (const chunk of content) chunks.push(Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks).toString('utf8')
}

/** A paginated AgentOS listing of `rows`, as the upstream answers page `page` of `limit`. */
export function page(rows: unknown[], pageNumber: number, limit: number, totalPages = true) {
  return {
    data: rows.slice((pageNumber - 1) * limit, pageNumber * limit),
    meta: {
      page: pageNumber,
      limit,
      total_count: rows.length,
      ...(totalPages ? { total_pages: Math.ceil(rows.length / limit) } : {}),
    },
  }
}

/**
 * The draft scene of the version checks: alice owns a1, whose config 1 is a draft and config 2 is
 * published; `answers` adds the upstream reads of one test file.
 */
export async function draftStageDeps(answers: Record<string, { status: number; value?: unknown }>) {
  const owners = new MemoryOwners()
  await owners.record('component', 'a1', 'alice')
  const { lookup, calls } = fakeLookup({
    '/components/a1/configs/1': { status: 200, value: { version: 1, stage: 'draft' } },
    '/components/a1/configs/2': { status: 200, value: { version: 2, stage: 'published' } },
    ...answers,
  })
  return { ...stageDeps({ owners, lookup, userIsolation: false }), calls }
}
