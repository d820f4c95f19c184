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

void t.test('IDENT-2: credentials are dropped unless a JWT is forwarded', async (t) => {
  const jwt = jwtUser('alice')
  const cases = [
    {
      name: 'default: jwt',
      sections: {},
      principal: jwt,
      dropHeader: true,
      dropCookie: 'access_token',
    },
    {
      name: 'default: service account',
      sections: {},
      principal: serviceAccount('b'),
      dropHeader: true,
      dropCookie: 'access_token',
    },
    {
      name: 'default: anonymous',
      sections: {},
      principal: ANONYMOUS,
      dropHeader: true,
      dropCookie: 'access_token',
    },
    {
      name: 'forward: jwt in header',
      sections: { identity: { forward_credentials: true } },
      principal: jwt,
      dropHeader: false,
      dropCookie: 'access_token',
    },
    {
      name: 'forward: service token never',
      sections: { identity: { forward_credentials: true } },
      principal: serviceAccount('b'),
      dropHeader: true,
      dropCookie: 'access_token',
    },
    {
      name: 'forward: security key never',
      sections: { identity: { forward_credentials: true } },
      principal: SECURITY_KEY,
      dropHeader: true,
      dropCookie: 'access_token',
    },
    {
      name: 'forward: admin jwt',
      sections: { identity: { forward_credentials: true } },
      principal: ADMIN,
      dropHeader: false,
      dropCookie: 'access_token',
    },
    {
      name: 'forward: jwt from the cookie',
      sections: {
        identity: { forward_credentials: true },
        auth: { token_source: 'cookie', cookie_name: 'jwt' },
      },
      principal: jwt,
      dropHeader: true,
      dropCookie: undefined,
    },
    {
      name: 'forward, both: no header, so the cookie carried it',
      sections: { identity: { forward_credentials: true }, auth: { token_source: 'both' } },
      principal: jwt,
      dropHeader: true,
      dropCookie: undefined,
    },
  ]
  for (const { name, sections, principal, dropHeader, dropCookie } of cases) {
    const plan = await enforcer(sections).plan(planInput({ principal, path: '/sessions' }))
    t.equal(plan.headers.drop?.has('authorization'), dropHeader, `${name}: header`)
    t.equal(plan.headers.dropCookie, dropCookie, `${name}: cookie`)
  }
  const both = await enforcer({
    identity: { forward_credentials: true },
    auth: { token_source: 'both' },
  }).plan(planInput({ principal: jwt, headers: { authorization: 'Bearer x.y.z' } }))
  t.notOk(both.headers.drop?.has('authorization'))
  t.equal(
    both.headers.dropCookie,
    'access_token',
    'both, header given: the cookie is not the credential',
  )
  const custom = await enforcer({ auth: { token_header_key: 'X_Api_Token' } }).plan(
    planInput({ principal: jwt }),
  )
  t.ok(custom.headers.drop?.has('x-api-token'), 'the configured header, normalized')
})

void t.test('nothing costly when nothing is rewritten: the body is not touched', async (t) => {
  const gateway = enforcer()
  for (const principal of [ANONYMOUS, ADMIN, jwtUser('alice')]) {
    const input = planInput({
      principal,
      method: 'POST',
      path: '/agents/a1/knowledge',
      body: '{"user_id":"x"}',
      headers: { 'content-type': 'application/json' },
    })
    const plan = await gateway.plan(input)
    t.equal(plan.body, undefined)
    t.equal(plan.query, undefined)
    t.equal(plan.rewriteResponse, undefined)
    t.equal(input.body.clientStream.readableFlowing, null, 'the stream was never read')
  }
})
