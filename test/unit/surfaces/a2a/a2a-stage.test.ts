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
  'task ownership is read from the upstream session, filtered by the caller',
  async (t) => {
    const session = { session_id: 's1', user_id: 'u1', agent_id: 'a1' }
    const { lookup, calls } = fakeLookup({
      '/sessions/s1': { status: 200, value: session },
      '/sessions/s2': { status: 404, value: { detail: 'not found' } },
    })
    const target = { family: 'agents', id: 'a1' } as const
    await verifyTaskOwnership(lookup, target, 's1', ['u1'])
    t.equal(calls[0], '/sessions/s1?type=agent&user_id=u1')
    const foreign = await gatewayErrorOf(() => verifyTaskOwnership(lookup, target, 's2', ['u1']))
    t.same([foreign.status, foreign.detail], [404, 'Task not found'])
    const otherComponent = { family: 'agents', id: 'a2' } as const
    t.equal(
      (await gatewayErrorOf(() => verifyTaskOwnership(lookup, otherComponent, 's1', ['u1'])))
        .status,
      404,
    )
    t.equal(
      (await gatewayErrorOf(() => verifyTaskOwnership(lookup, target, 's1', ['u2']))).status,
      404,
    )
    t.equal(
      (await gatewayErrorOf(() => verifyTaskOwnership(lookup, target, 7, ['u1']))).status,
      404,
    )
    await verifyTaskOwnership(lookup, target, undefined, ['u1'])
    t.equal(calls.length, 4, 'no contextId: left to the upstream')
    t.equal(
      (await gatewayErrorOf(() => verifyTaskOwnership(lookup, target, 's9', ['u1']))).status,
      502,
    )
  },
)
