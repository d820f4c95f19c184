import t from 'tap'
import {
  ADMIN,
  ANONYMOUS,
  SECURITY_KEY,
  enforcer,
  jwtUser,
  planInput,
  serviceAccount,
} from './helpers.js'

const isolated = () => enforcer({ auth: { user_isolation: true } })
const alice = jwtUser('alice', ['sessions:read'])

void t.test(
  'ISO-2: a scoped caller gets user_id=<scoped> on every route, others byte for byte',
  async (t) => {
    const gateway = isolated()
    const cases: [string, string, string][] = [
      ['', '/sessions', 'user_id=alice'],
      ['type=agent', '/sessions', 'type=agent&user_id=alice'],
      ['type=agent&user_id=bob', '/sessions', 'type=agent&user_id=alice'],
      ['user_id=bob&type=agent', '/sessions', 'type=agent&user_id=alice'],
      [
        'user%5Fid=bob&user+id=x&user_id&a=%2B+1;user_idx=y',
        '/memories',
        'user+id=x&a=%2B+1;user_idx=y&user_id=alice',
      ],
      ['&&a=1&&', '/traces', '&&a=1&&&user_id=alice'],
      ['q=%E6%97%A5&user_id=a&user_id=b', '/agents/a1/runs/r1', 'q=%E6%97%A5&user_id=alice'],
    ]
    for (const [query, path, expected] of cases) {
      const plan = await gateway.plan(planInput({ principal: alice, path, query }))
      t.equal(plan.query, expected, `${path}?${query}`)
    }
    const encoded = await gateway.plan(
      planInput({ principal: jwtUser('josé & co'), path: '/sessions' }),
    )
    t.equal(encoded.query, 'user_id=jos%C3%A9%20%26%20co')
    // ISO-4: a reader that splits on `;` would see a user_id the pin never replaced.
    for (const query of ['a=1;user_id=y', 'a=1;b=2;user%5Fid=y', 'user_id=x;user_id=y']) {
      await t.rejects(
        gateway.plan(planInput({ principal: alice, path: '/memories', query })),
        { code: 'BAD_REQUEST', reason: 'identity.query_separator' },
        query,
      )
    }
  },
)

void t.test('ISO-2: who is scoped (ISO-1)', async (t) => {
  const cases = [
    {
      name: 'service account, isolation off',
      gateway: enforcer(),
      principal: serviceAccount('bot'),
      query: 'user_id=sa%3Abot',
    },
    { name: 'jwt, isolation off (ISO-1)', gateway: enforcer(), principal: alice, query: undefined },
    { name: 'jwt, isolation on', gateway: isolated(), principal: alice, query: 'user_id=alice' },
    { name: 'admin (ISO-1)', gateway: isolated(), principal: ADMIN, query: undefined },
    {
      name: 'admin service account',
      gateway: isolated(),
      principal: serviceAccount('ops', ['os:admin']),
      query: undefined,
    },
    {
      name: 'custom admin scope',
      gateway: enforcer({ auth: { user_isolation: true, admin_scope: 'corp:root' } }),
      principal: jwtUser('c', ['corp:root']),
      query: undefined,
    },
    {
      name: 'os:admin is not admin under a custom scope',
      gateway: enforcer({ auth: { user_isolation: true, admin_scope: 'corp:root' } }),
      principal: jwtUser('c', ['os:admin']),
      query: 'user_id=c',
    },
    { name: 'security key', gateway: isolated(), principal: SECURITY_KEY, query: undefined },
    { name: 'anonymous', gateway: isolated(), principal: ANONYMOUS, query: undefined },
    { name: 'jwt without sub', gateway: isolated(), principal: jwtUser(null), query: undefined },
  ]
  for (const { name, gateway, principal, query } of cases) {
    const plan = await gateway.plan(planInput({ principal, path: '/sessions' }))
    t.equal(plan.query, query, name)
  }
})

void t.test(
  '152: user-b listing user-a sessions gets its own; 154: an admin filter is honoured',
  async (t) => {
    const gateway = isolated()
    const userB = await gateway.plan(
      planInput({
        principal: jwtUser('user-b'),
        path: '/sessions',
        query: 'type=agent&user_id=user-a',
      }),
    )
    t.equal(userB.query, 'type=agent&user_id=user-b')
    const admin = await gateway.plan(
      planInput({ principal: ADMIN, path: '/sessions', query: 'type=agent&user_id=user-a' }),
    )
    t.equal(admin.query, undefined, 'the admin query goes unchanged')
  },
)

void t.test('ISO-2: fork pins the caller for unscoped callers too (ISO-2)', async (t) => {
  const gateway = enforcer()
  const path = '/agents/a1/sessions/s1/fork'
  const cases = [
    { principal: ADMIN, path, query: 'user_id=other&x=1', expected: 'x=1&user_id=root' },
    { principal: alice, path: '/teams/t1/sessions/s1/fork', query: '', expected: 'user_id=alice' },
    { principal: ANONYMOUS, path, query: 'user_id=other', expected: undefined },
    { principal: SECURITY_KEY, path, query: 'user_id=other', expected: undefined },
    {
      principal: ADMIN,
      path: '/workflows/w1/sessions/s1/fork',
      query: 'user_id=o',
      expected: undefined,
    },
    { principal: ADMIN, path: '/agents/a1/sessions/s1', query: 'user_id=o', expected: undefined },
  ]
  for (const { principal, path, query, expected } of cases) {
    const method = 'POST'
    t.equal(
      (await gateway.plan(planInput({ principal, method, path, query }))).query,
      expected,
      `${path}?${query}`,
    )
  }
})
