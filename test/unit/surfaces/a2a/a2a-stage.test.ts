import t from 'tap'
import { ANONYMOUS } from '../../../../src/principal.js'
import { GatewayError } from '../../../../src/errors.js'
import { ComponentCatalog } from '../../../../src/surfaces/a2a/component-catalog.js'
import { verifyTaskOwnership } from '../../../../src/surfaces/a2a/task-ownership.js'
import {
  claimsReservedPrincipal,
  pinClientUserId,
  RESERVED_USER_ID_DENIAL,
} from '../../../../src/surfaces/common/client-user-id.js'
import type { UpstreamLookup } from '../../../../src/surfaces/common/upstream-lookup.js'
import { gatewayErrorOf } from '../../auth/helpers.js'
import { jwtPrincipal } from '../helpers.js'

void t.test('client user ids: pinned for callers with one, reserved ones refused', async (t) => {
  t.ok(claimsReservedPrincipal('sa:x'))
  t.ok(claimsReservedPrincipal(' __scheduler__'))
  t.notOk(claimsReservedPrincipal('user-456'))
  t.notOk(claimsReservedPrincipal(42))
  const metadata: Record<string, unknown> = { userId: 'victim' }
  t.ok(pinClientUserId(metadata, 'userId', jwtPrincipal([], 'u1'), false))
  t.same(metadata, { userId: 'u1' })
  const absent: Record<string, unknown> = {}
  t.notOk(pinClientUserId(absent, 'userId', jwtPrincipal([], 'u1'), false), 'not added')
  t.ok(pinClientUserId(absent, 'user_id', jwtPrincipal([], 'u1'), true), 'added when always')
  t.notOk(pinClientUserId({ user_id: 'anyone' }, 'user_id', ANONYMOUS, true))
  const refused = await gatewayErrorOf(() =>
    pinClientUserId({ user_id: 'sa:evil' }, 'user_id', ANONYMOUS, true),
  )
  t.same([refused.status, refused.detail], [403, RESERVED_USER_ID_DENIAL])
})

function fakeLookup(answers: Record<string, { status: number; value: unknown }>) {
  const calls: string[] = []
  const lookup: UpstreamLookup = async (path) => {
    calls.push(path)
    const answer = answers[path.split('?')[0] ?? '']
    if (answer === undefined)
      throw new GatewayError('UPSTREAM_UNAVAILABLE', 'down', { reason: 'upstream.refused' })
    return answer
  }
  return { lookup, calls }
}

void t.test('the component catalog resolves families, cached for its TTL', async (t) => {
  const config = {
    agents: [{ id: 'shared' }, { id: 'a1' }],
    teams: [{ id: 't1' }, { id: 'shared' }],
    workflows: [{ id: 'w1' }],
  }
  const { lookup, calls } = fakeLookup({ '/config': { status: 200, value: config } })
  const clock = { ms: 0 }
  const catalog = new ComponentCatalog({ lookup, ttlMs: 1000, now: () => clock.ms })
  t.equal(await catalog.familyOf('t1'), 'teams')
  t.equal(await catalog.familyOf('w1'), 'workflows')
  t.equal(await catalog.familyOf('shared'), 'agents', 'agents first, as AgentOS resolves')
  t.equal(await catalog.familyOf('nope'), undefined)
  t.equal(calls.length, 1)
  clock.ms = 1000
  await catalog.familyOf('a1')
  t.equal(calls.length, 2, 'fetched again after the TTL')
})

void t.test('a failed catalog fetch fails closed and is not cached', async (t) => {
  let status = 500
  const lookup: UpstreamLookup = async () => ({ status, value: { agents: [{ id: 'a1' }] } })
  const catalog = new ComponentCatalog({ lookup, ttlMs: 60_000 })
  const failure = await gatewayErrorOf(() => catalog.familyOf('a1'))
  t.equal(failure.status, 502)
  status = 200
  t.equal(await catalog.familyOf('a1'), 'agents')
})

void t.test(
  'task ownership: a run of the component in a session the caller owns (get and cancel)',
  async (t) => {
    const session = { session_id: 's1', user_id: 'u1', agent_id: 'a1' }
    const { lookup, calls } = fakeLookup({
      '/sessions/s1': { status: 200, value: session },
      '/sessions/s1/runs': { status: 200, value: [{ run_id: 'r1', agent_id: 'a1' }] },
      '/sessions/s2': { status: 404, value: { detail: 'not found' } },
      '/sessions/s3': { status: 200, value: { ...session, session_id: 's3' } },
      '/sessions/s3/runs': { status: 500, value: null },
    })
    const target: { readonly family: 'agents'; readonly id: string } = {
      family: 'agents',
      id: 'a1',
    }
    const params = (id: unknown, contextId: unknown) => ({ id, contextId })
    for (const operation of ['get', 'cancel'] as const) {
      await verifyTaskOwnership(lookup, target, params('r1', 's1'), ['u1'], operation)
      const refusal = (p: unknown, owners = ['u1'], component = target) =>
        gatewayErrorOf(() => verifyTaskOwnership(lookup, component, p, owners, operation))
      const foreign = await refusal(params('r1', 's2'))
      t.same([foreign.status, foreign.detail], [404, 'Run not found'], `${operation}: foreign`)
      t.equal((await refusal(params('r2', 's1'))).status, 404, `${operation}: not in the session`)
      t.equal(
        (await refusal(params('r1', 's1'), ['u2'])).status,
        404,
        `${operation}: not the owner`,
      )
      const other = { ...target, id: 'a2' }
      t.equal((await refusal(params('r1', 's1'), ['u1'], other)).status, 404, 'other component')
      t.equal((await refusal(params('r1', 7))).status, 404, `${operation}: a contextId no string`)
      t.equal((await refusal(params('r1', 's3'))).status, 502, `${operation}: runs unreadable`)
      t.equal((await refusal(params('r1', 's9'))).status, 502, `${operation}: session unreadable`)
      await verifyTaskOwnership(lookup, target, params('r1', 's1'), ['alias', 'u1'], operation)
      await verifyTaskOwnership(lookup, target, { contextId: 's2' }, ['u1'], operation)
    }
    t.equal(calls[0], '/sessions/s1?type=agent&user_id=u1')
    const before = calls.length
    await verifyTaskOwnership(lookup, target, params('r1', undefined), ['u1'], 'get')
    t.equal(calls.length, before, 'get without contextId: the upstream’s 400')
    const cancel = await gatewayErrorOf(() =>
      verifyTaskOwnership(lookup, target, params('r1', ''), ['u1'], 'cancel'),
    )
    t.same(
      [cancel.status, cancel.detail],
      [400, 'contextId is required to cancel a task'],
      'cancel without contextId',
    )
    await verifyTaskOwnership(lookup, target, undefined, ['u1'], 'cancel')
    t.equal(calls.length, before, 'no task id: the upstream’s 400')
  },
)
