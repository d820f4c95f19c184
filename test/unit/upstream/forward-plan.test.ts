/**
 * Forward plans without sockets: each stage receives the plan so far and returns a new one; the
 * plans it was given never change; the upstream request is the last plan carried out.
 */
import { Readable } from 'node:stream'
import t from 'tap'
import { testCatalogue } from '../../helpers/catalogue.js'

const CATALOGUE = testCatalogue()
import type { StageRequest } from '../../../src/http/stage.js'
import { ClientBody } from '../../../src/inbound/client-body.js'
import { IdentityEnforcer } from '../../../src/identity/identity-enforcer.js'
import { Grants } from '../../../src/policy/grants.js'
import type { Principal } from '../../../src/principal.js'
import { aguiStage } from '../../../src/surfaces/agui/agui-stage.js'
import { a2aStage } from '../../../src/surfaces/a2a/a2a-stage.js'
import { ComponentCatalog } from '../../../src/surfaces/a2a/component-catalog.js'
import { discoveryStage } from '../../../src/surfaces/discovery/discovery-urls.js'
import {
  PASS_THROUGH,
  thenRewriteResponse,
  withInjectedValue,
  withQuery,
  type ForwardPlan,
} from '../../../src/upstream/forward-plan.js'
import type { BufferedResponse } from '../../../src/upstream/upstream-client.js'
import type { UpstreamHeaderOptions } from '../../../src/upstream/upstream-headers.js'
import { upstreamRequest } from '../../../src/upstream/upstream-request.js'
import { inboundRequest } from '../../helpers/inbound.js'
import { serviceAccountPrincipal } from '../../helpers/principals.js'
import { jwtUser, testConfig } from '../identity/helpers.js'

const OPTIONS: UpstreamHeaderOptions = {
  identityPrefixes: ['x-auth-'],
  identityNames: new Set(),
  preserveHost: false,
  upstreamHost: 'runtime:8000',
}
const LIMITS = { maxBytes: 1_048_576, maxDepth: 64 }
const noLookup = async () => ({ status: 404, value: undefined })

const response = (body: unknown): BufferedResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
})

/** The JSON a request's body forwards, as the steps so far left it. */
function plannedJson(body: ClientBody): Record<string, unknown> {
  const content = body.forwarded()?.content
  if (!Buffer.isBuffer(content)) throw new Error('no buffered body planned')
  return JSON.parse(content.toString('utf8')) as Record<string, unknown>
}

/** A deep copy of a plan's data (functions and streams by identity), to prove it was not changed. */
function snapshot(plan: ForwardPlan): unknown {
  return {
    ...plan,
    headers: {
      drop: [...plan.headers.drop],
      dropCookie: plan.headers.dropCookie,
      inject: plan.headers.inject.map((pair) => [...pair]),
    },
  }
}

function stageRequest(
  principal: Principal,
  method: string,
  path: string,
  body: unknown,
  headers: string[] = [],
): StageRequest {
  const text = body === undefined ? '' : JSON.stringify(body)
  const rawHeaders = [
    'Host',
    'gateway.example',
    'Content-Type',
    'application/json',
    ...(text === '' ? [] : ['Content-Length', String(Buffer.byteLength(text))]),
    ...headers,
  ]
  const inbound = inboundRequest({ method, path, rawHeaders })
  return {
    inbound,
    route: CATALOGUE.match(method, path),
    principal,
    body: new ClientBody(
      Readable.from(text === '' ? [] : [Buffer.from(text)]),
      inbound.headers,
      LIMITS,
    ),
  }
}

/** The first plan: identity enforcement of the stage request (on `path`, else its own). */
function identityPlan(
  enforcer: IdentityEnforcer,
  request: StageRequest,
  path = request.inbound.path,
): Promise<ForwardPlan> {
  return enforcer.plan({
    principal: request.principal,
    method: request.inbound.method,
    path,
    route: CATALOGUE.match(request.inbound.method, path),
    query: request.inbound.query,
    headers: request.inbound.headers,
    body: request.body,
  })
}

void t.test('the helpers return new plans and leave the old ones alone', async (t) => {
  const base: ForwardPlan = {
    ...PASS_THROUGH,
    headers: { drop: new Set(['authorization']), dropCookie: 'c', inject: [['X-User-ID', 'u']] },
  }
  const before = snapshot(base)
  const changed = withInjectedValue(
    thenRewriteResponse(withQuery(base, 'a=1'), (r) => r),
    'x-user-id',
    'alias',
  )
  t.same(snapshot(base), before, 'the plan a stage received is unchanged')
  t.equal(changed.query, 'a=1')
  t.same(changed.headers.inject, [['X-User-ID', 'alias']], 'matched case-insensitively')
  t.equal(withInjectedValue(base, 'x-other', 'v'), base, 'nothing to replace: the same plan')
  t.ok(Object.isFrozen(PASS_THROUGH))
})

void t.test('each helper changes its own field and carries every other one over', async (t) => {
  const rewrite = (r: BufferedResponse) => r
  const owner = serviceAccountPrincipal('ci', ['agents:run'])
  const full: ForwardPlan = {
    headers: {
      drop: new Set(['authorization']),
      dropCookie: 'session',
      inject: [
        ['X-User-ID', 'sa:ci'],
        ['X-Auth-Kind', 'service_account'],
      ],
    },
    query: 'user_id=sa%3Aci',
    rewriteResponse: rewrite,
    endsWith: owner,
  }
  const others = (plan: ForwardPlan, changed: keyof ForwardPlan) => {
    const rest: Partial<Record<keyof ForwardPlan, unknown>> = { ...plan }
    delete rest[changed]
    return rest
  }
  t.same(others(withQuery(full, 'a=1'), 'query'), others(full, 'query'), 'withQuery')
  t.same(
    others(thenRewriteResponse(full, rewrite), 'rewriteResponse'),
    others(full, 'rewriteResponse'),
    'thenRewriteResponse',
  )
  const renamed = withInjectedValue(full, 'x-user-id', '__portcullis__:sa:ci')
  t.same(others(renamed, 'headers'), others(full, 'headers'), 'withInjectedValue')
  t.equal(renamed.headers.drop, full.headers.drop, 'the drops stay')
  t.equal(renamed.headers.dropCookie, 'session', 'the cookie removal stays')
  t.same(renamed.headers.inject, [
    ['X-User-ID', '__portcullis__:sa:ci'],
    ['X-Auth-Kind', 'service_account'],
  ])
})

void t.test('response rewrites run in the order the stages added them', async (t) => {
  const order: string[] = []
  const first = thenRewriteResponse(PASS_THROUGH, (r) => (order.push('identity'), r))
  const second = thenRewriteResponse(first, (r) => (order.push('discovery'), r))
  await second.rewriteResponse?.(response({}))
  t.same(order, ['identity', 'discovery'])
  // An asynchronous rewrite (one that records or looks up first) is awaited before the next.
  const later = thenRewriteResponse(PASS_THROUGH, async (r) => {
    await new Promise((resolve) => setImmediate(resolve))
    order.push('owners')
    return { ...r, status: 201 }
  })
  const last = thenRewriteResponse(later, (r) => (order.push(`after ${r.status}`), r))
  t.equal((await last.rewriteResponse?.(response({})))?.status, 201)
  t.same(order.slice(2), ['owners', 'after 201'])
})

void t.test(
  'identity, then discovery: /info reports the mode and its URLs are the client’s',
  async (t) => {
    const enforcer = new IdentityEnforcer(testConfig({}), 'jwt')
    const principal = serviceAccountPrincipal('ci', ['agents:read'])
    const request = stageRequest(principal, 'GET', '/.well-known/agent-card.json', undefined)
    const identity = await identityPlan(enforcer, request, '/info')
    t.ok(identity.rewriteResponse, '/info is rewritten by identity enforcement')
    const before = snapshot(identity)
    const stage = discoveryStage(OPTIONS)
    t.ok(stage.claims('GET', '/.well-known/agent-card.json'))
    t.notOk(stage.claims('GET', '/agents'))
    const final = (await stage.plan(request, identity)) as ForwardPlan
    t.same(snapshot(identity), before)
    const rewritten = await final.rewriteResponse?.(
      response({ url: 'http://runtime:8000/a2a', auth_mode: 'none' }),
    )
    t.same(JSON.parse(rewritten?.body.toString() ?? ''), {
      url: 'http://gateway.example/a2a',
      auth_mode: 'jwt',
    })
    t.equal(final.headers, identity.headers, 'the headers plan is shared, not copied')
  },
)

void t.test('identity pins the body, AG-UI reads the pinned body, not the client’s', async (t) => {
  const enforcer = new IdentityEnforcer(testConfig({}), 'jwt')
  const principal = serviceAccountPrincipal('ci', ['agents:run'])
  const body = { forwarded_props: { user_id: 'mallory' }, user_id: 'mallory' }
  const request = stageRequest(principal, 'POST', '/agents/a1/runs', body)
  const identity = await identityPlan(enforcer, request)
  t.same(
    plannedJson(request.body),
    { forwarded_props: { user_id: 'mallory' }, user_id: 'sa:ci' },
    'the run route pins user_id',
  )
  const stage = aguiStage()
  const final = (await stage.plan(request, identity)) as ForwardPlan
  t.same(plannedJson(request.body), {
    forwarded_props: { user_id: '__portcullis__:sa:ci' },
    user_id: 'sa:ci',
  })
  t.equal(final, identity, 'the body is not part of the plan')
  t.equal(
    request.body.clientStream.readableFlowing,
    true,
    'the client stream was read once, by identity',
  )
})

void t.test('A2A names a service account by its alias in X-User-ID', async (t) => {
  const enforcer = new IdentityEnforcer(testConfig({}), 'jwt')
  const principal = serviceAccountPrincipal('ci', ['agents:run'])
  const body = { params: { message: { metadata: { userId: 'sa:ci' } } } }
  const request = stageRequest(principal, 'POST', '/a2a/agents/a1/v1/message:send', body)
  const identity = await identityPlan(enforcer, request)
  const stage = a2aStage({
    grants: new Grants('agent_os:admin'),
    userIsolation: false,
    catalog: new ComponentCatalog({ lookup: noLookup, ttlMs: 1000 }),
    lookup: noLookup,
  })
  const final = (await stage.plan(request, identity)) as ForwardPlan
  t.same(
    final.headers.inject.find(([name]) => name === 'x-user-id'),
    ['x-user-id', '__portcullis__:sa:ci'],
  )
  t.same(
    identity.headers.inject.find(([name]) => name === 'x-user-id'),
    ['x-user-id', 'sa:ci'],
    'the identity plan (shared by REST requests) keeps sa:<name>',
  )
  t.same(
    (plannedJson(request.body) as { params: { message: { metadata: unknown } } }).params.message
      .metadata,
    {
      userId: '__portcullis__:sa:ci',
    },
  )
})

void t.test('the common plan is built once per principal and shared', async (t) => {
  const enforcer = new IdentityEnforcer(testConfig({}), 'jwt')
  const principal = jwtUser('alice', ['sessions:read'])
  const scoped = serviceAccountPrincipal('ci', ['sessions:read'])
  const plan = async () =>
    enforcer.plan({
      principal: scoped,
      method: 'GET',
      path: '/sessions',
      route: CATALOGUE.match('GET', '/sessions'),
      query: 'type=agent',
      headers: {},
    })
  const [first, second] = [await plan(), await plan()]
  t.equal(first.query, 'type=agent&user_id=sa%3Aci', 'a scoped caller: user_id pinned')
  const read = async (path: string) =>
    enforcer.plan({
      principal,
      method: 'GET',
      path,
      route: CATALOGUE.match('GET', path),
      query: '',
      headers: {},
    })
  const shared = await read('/config')
  t.equal(await read('/models'), shared, 'the same plan object for every such request')
  t.ok(Object.isFrozen(shared))
  t.not(first, second, 'a rewritten query is its own plan')
  t.equal(shared.endsWith, principal, 'whose credential ends a connection')
  const other = new IdentityEnforcer(testConfig({}), 'jwt')
  t.not(
    await other.plan({
      principal,
      method: 'GET',
      path: '/config',
      route: CATALOGUE.match('GET', '/config'),
      query: '',
      headers: {},
    }),
    shared,
    'plans are per enforcer (per config), not per process',
  )
})

void t.test('the upstream request carries out the last plan', async (t) => {
  const client = Readable.from([Buffer.from('{ }')])
  const inbound = inboundRequest({
    method: 'POST',
    path: '/agents/a é',
    forwardPath: '/agents/a%20%C3%A9',
    query: 'x=1',
    rawHeaders: ['Content-Length', '3', 'Content-Type', 'application/json'],
  })
  const unread = new ClientBody(client, inbound.headers, LIMITS)
  const passed = upstreamRequest(inbound, PASS_THROUGH, unread, OPTIONS)
  t.equal(passed.path, '/agents/a%20%C3%A9?x=1', 'the canonical path re-encoded, the client query')
  t.equal(passed.body, client, "the client's stream")
  const edited = new ClientBody(client, inbound.headers, LIMITS)
  edited.setJson({})
  const planned = upstreamRequest(inbound, withQuery(PASS_THROUGH, ''), edited, OPTIONS)
  t.equal(planned.path, '/agents/a%20%C3%A9', 'an emptied query')
  t.same(planned.body, Buffer.from('{}'))
  t.ok(planned.headers.includes('content-length'), 'an edited body goes with its own length')
  const bodiless = inboundRequest({ rawHeaders: ['Content-Length', '00'] })
  const none = new ClientBody(client, bodiless.headers, LIMITS)
  t.equal(upstreamRequest(bodiless, PASS_THROUGH, none, OPTIONS).body, null, '"00" is no body')
})

void t.test(
  'a plan that waits for nothing comes at once; one that pins a body, later',
  async (t) => {
    const enforcer = new IdentityEnforcer(testConfig({}), 'jwt')
    const principal = serviceAccountPrincipal('ci', ['agents:run', 'sessions:read'])
    const planOf = (request: StageRequest) =>
      enforcer.planNow({
        principal,
        method: request.inbound.method,
        path: request.inbound.path,
        route: request.route,
        query: request.inbound.query,
        headers: request.inbound.headers,
        body: request.body,
      })
    const read = planOf(stageRequest(principal, 'GET', '/sessions', undefined))
    t.notOk(read instanceof Promise, 'a read with a query pin: no promise')
    t.equal((read as ForwardPlan).query, 'user_id=sa%3Aci')
    const runRequest = stageRequest(principal, 'POST', '/agents/a1/runs', { user_id: 'mallory' })
    const run = planOf(runRequest)
    t.ok(run instanceof Promise, 'a run whose body is pinned: a promise')
    await run
    t.same(plannedJson(runRequest.body), { user_id: 'sa:ci' }, 'pinned once it resolved')
  },
)
