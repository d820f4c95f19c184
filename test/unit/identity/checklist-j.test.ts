/** Checklist part J (docs/agentos-compatibility.md, "Conformance checklist"), the lines decidable at the identity layer. JI unless noted. */
import t from 'tap'
import { ADMIN, bodyText, enforcer, jwtUser, planInput, refusal } from './helpers.js'

const JI = () => enforcer({ auth: { user_isolation: true } })
const J = () => enforcer()
const userA = jwtUser('user-a', ['sessions:read', 'sessions:write', 'memories:delete'])
const userB = jwtUser('user-b', ['sessions:read', 'agents:run', 'memories:delete'])
const JSON_TYPE = { 'content-type': 'application/json' }

void t.test('152: user-b asking for user-a sessions is pinned to itself', async (t) => {
  const plan = await JI().plan(
    planInput({ principal: userB, path: '/sessions', query: 'type=agent&user_id=user-a' }),
  )
  t.equal(plan.query, 'type=agent&user_id=user-b')
})

void t.test('154: an admin sees everyone, and its user_id filter is honoured', async (t) => {
  t.equal(
    (await JI().plan(planInput({ principal: ADMIN, path: '/sessions', query: 'type=agent' })))
      .query,
    undefined,
  )
  const filtered = await JI().plan(
    planInput({ principal: ADMIN, path: '/sessions', query: 'type=agent&user_id=user-a' }),
  )
  t.equal(filtered.query, undefined, 'forwarded as sent')
})

void t.test('155: user-a creating a session for someone else gets its own', async (t) => {
  const plan = await JI().plan(
    planInput({
      principal: userA,
      method: 'POST',
      path: '/sessions',
      query: 'type=agent',
      headers: JSON_TYPE,
      body: '{"session_name":"s","user_id":"someone-else"}',
    }),
  )
  t.equal(await bodyText(plan), '{"session_name":"s","user_id":"user-a"}')
  t.equal(plan.query, 'type=agent&user_id=user-a')
})

void t.test('156: non-admin cancel without session_id → 400; admin passes', async (t) => {
  const path = '/agents/a1/runs/r/cancel'
  const error = await refusal(() =>
    JI().plan(planInput({ principal: userB, method: 'POST', path })),
  )
  t.equal(error.status, 400)
  t.equal(error.detail, 'session_id is required for this action')
  const withSession = await JI().plan(
    planInput({ principal: userB, method: 'POST', path, query: 'session_id=s-a' }),
  )
  t.equal(
    withSession.query,
    'session_id=s-a&user_id=user-b',
    'the upstream then looks the run up as user-b (404)',
  )
  const admin = await JI().plan(planInput({ principal: ADMIN, method: 'POST', path }))
  t.equal(admin.query, undefined)
})

void t.test(
  '158 (J, isolation off): cancel without session_id passes; user-b lists user-a sessions',
  async (t) => {
    const cancel = await J().plan(
      planInput({ principal: userB, method: 'POST', path: '/agents/a1/runs/r/cancel' }),
    )
    t.equal(cancel.query, undefined)
    const list = await J().plan(
      planInput({ principal: userB, path: '/sessions', query: 'user_id=user-a' }),
    )
    t.equal(list.query, undefined)
  },
)

void t.test(
  "161: user-b deleting user-a's memory becomes a no-op; the admin's goes through",
  async (t) => {
    const body = '{"memory_ids":["m-of-a"],"user_id":"user-a"}'
    const send = (principal: typeof userB) =>
      JI().plan(
        planInput({ principal, method: 'DELETE', path: '/memories', headers: JSON_TYPE, body }),
      )
    t.equal(await bodyText(await send(userB)), '{"memory_ids":["m-of-a"],"user_id":"user-b"}')
    t.equal((await send(ADMIN)).body, undefined)
  },
)
