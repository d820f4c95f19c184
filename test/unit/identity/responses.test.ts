import t from 'tap'
import { GatewayError } from '../../../src/errors.js'
import type { BufferedResponse } from '../../../src/upstream/upstream-client.js'
import { ANONYMOUS, enforcer, jwtUser, planInput, sentUpstream, serviceAccount } from './helpers.js'

const json = (
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): BufferedResponse => {
  const body = Buffer.from(JSON.stringify(value))
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'content-length': String(body.length),
      etag: '"up"',
      ...headers,
    },
    body,
  }
}

void t.test('RBAC-2: listings keep only accessible ids (RBAC-2, AUTH-8)', async (t) => {
  const gateway = enforcer()
  const principal = serviceAccount('reader', ['agents:a1:read'])
  const agents = [{ id: 'a1', name: 'One' }, { id: 'a2' }, { name: 'no id' }, 'junk', { id: 3 }]
  for (const path of ['/agents', '/teams', '/workflows']) {
    const plan = await gateway.plan(planInput({ principal, path, accessibleIds: new Set(['a1']) }))
    t.notOk(
      'accept-encoding' in sentUpstream(plan, ['Accept-Encoding', 'gzip']),
      `${path}: asked uncompressed`,
    )
    const response = await plan.rewriteResponse?.(json(agents))
    t.same(JSON.parse(response?.body.toString() ?? ''), [{ id: 'a1', name: 'One' }], path)
    t.equal(
      response?.headers['content-length'],
      String(response?.body.length),
      'content-length fixed',
    )
    t.equal(
      response?.headers['etag'],
      undefined,
      "the upstream's ETag no longer describes the body",
    )
    t.equal(response?.headers['content-type'], 'application/json')
  }
  const none = await gateway.plan(
    planInput({ principal, path: '/agents', accessibleIds: new Set() }),
  )
  t.equal((await none.rewriteResponse?.(json(agents)))?.body.toString(), '[]')

  const plan = await gateway.plan(
    planInput({ principal, path: '/agents', accessibleIds: new Set(['a1']) }),
  )
  const rewrite = plan.rewriteResponse
  if (rewrite === undefined) throw new Error('expected a rewrite')
  for (const [name, response] of [
    ['an error', json({ detail: 'x' }, 500)],
    ['an object', json({ items: agents })],
    ['not JSON', { status: 200, headers: {}, body: Buffer.from('<html>') }],
  ] as const) {
    t.equal(rewrite(response), response, `${name} is unchanged`)
  }
  const compressed = json(agents, 200, { 'content-encoding': 'gzip' })
  t.throws(
    () => rewrite(compressed),
    new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream listing could not be filtered', {
      reason: 'identity.listing_encoded',
    }),
    'compressed: refused, not leaked',
  )

  for (const accessibleIds of ['all', undefined] as const) {
    const all = await gateway.plan(
      planInput({
        principal: jwtUser('a', ['agents:read']),
        path: '/agents',
        ...(accessibleIds && { accessibleIds }),
      }),
    )
    t.equal(all.rewriteResponse, undefined, `${String(accessibleIds)}: no rewrite`)
    t.equal(sentUpstream(all, ['Accept-Encoding', 'gzip'])['accept-encoding'], 'gzip')
  }
  const detail = await gateway.plan(
    planInput({ principal, path: '/agents/a1', accessibleIds: new Set(['a1']) }),
  )
  t.equal(detail.rewriteResponse, undefined, 'only the listings themselves')
})

void t.test('INFO-1: GET /info reports the gateway mode (INFO-1)', async (t) => {
  const upstream = json({ os_id: 'os-1', auth_mode: 'none', mcp: { oauth: null } })
  for (const mode of ['jwt', 'security_key', 'none'] as const) {
    const plan = await enforcer({}, mode).plan(planInput({ principal: ANONYMOUS, path: '/info' }))
    const response = await plan.rewriteResponse?.(upstream)
    t.same(
      JSON.parse(response?.body.toString() ?? ''),
      { os_id: 'os-1', auth_mode: mode, mcp: { oauth: null } },
      mode,
    )
    t.equal(response?.headers['content-length'], String(response?.body.length))
  }
  const plan = await enforcer().plan(planInput({ path: '/info' }))
  const notFound = json({ detail: 'Not Found' }, 404)
  t.equal(plan.rewriteResponse?.(notFound), notFound)
  t.equal(
    (await enforcer().plan(planInput({ method: 'POST', path: '/info' }))).rewriteResponse,
    undefined,
  )
})
