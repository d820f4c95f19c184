import t from 'tap'
import type { Principal } from '../../../src/principal.js'
import {
  ADMIN,
  ANONYMOUS,
  SECURITY_KEY,
  bodyText,
  enforcer,
  jwtUser,
  planInput,
  refusal,
  serviceAccount,
} from './helpers.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const run = (principal: Principal, body: string | Buffer, path = '/agents/a1/runs') =>
  planInput({ principal, method: 'POST', path, headers: FORM, body })

void t.test('ISO-2: run forms take the caller id, admins included (ISO-2, AUTH-8)', async (t) => {
  const gateway = enforcer()
  const cases = [
    {
      name: 'service account, spoofed user_id',
      principal: serviceAccount('bot'),
      body: 'message=hi&user_id=victim&stream=false',
      expected: 'message=hi&stream=false&user_id=sa%3Abot',
    },
    {
      name: 'admin is overridden with its own id too',
      principal: ADMIN,
      body: 'user_id=someone&message=hi',
      expected: 'message=hi&user_id=root',
    },
    {
      name: 'jwt without isolation, several copies in every spelling',
      principal: jwtUser('alice'),
      body: 'user_id=a&message=x%20y+z&user%5fid=b;user_id=c&user+id=keep&user_id',
      expected: 'message=x%20y+z&user+id=keep&user_id=alice',
    },
    {
      name: 'added when absent',
      principal: jwtUser('alice'),
      body: 'message=hi',
      expected: 'message=hi&user_id=alice',
    },
    { name: 'empty form', principal: jwtUser('alice'), body: '', expected: undefined },
    {
      name: 'JWT session_id claim overrides the form (JWT-10)',
      principal: jwtUser('alice', [], { sessionId: 'claimed' }),
      body: 'session_id=mine&message=hi',
      expected: 'message=hi&user_id=alice&session_id=claimed',
    },
  ]
  for (const { name, principal, body, expected } of cases) {
    const plan = await gateway.plan(run(principal, body))
    t.equal(await bodyText(plan), expected, name)
    t.equal(plan.body?.contentType, undefined, `${name}: same content type`)
  }
  for (const principal of [ANONYMOUS, SECURITY_KEY]) {
    const plan = await gateway.plan(run(principal, 'user_id=sa:anything&message=hi'))
    t.equal(plan.body, undefined, `${principal.kind}: form used as is, not even read`)
  }
})

void t.test(
  'ISO-2: continue is a run route; other routes replace a scoped user_id only',
  async (t) => {
    const gateway = enforcer({ auth: { user_isolation: true } })
    const alice = jwtUser('alice')
    const cont = await gateway.plan(
      run(alice, 'session_id=s1&user_id=x&tools=%5B%5D', '/teams/t1/runs/r1/continue'),
    )
    t.equal(await bodyText(cont), 'session_id=s1&tools=%5B%5D&user_id=alice')
    const other = await gateway.plan(run(alice, 'a=1&user_id=x&b=2', '/knowledge/content'))
    t.equal(await bodyText(other), 'a=1&b=2&user_id=alice')
    const absent = await gateway.plan(run(alice, 'a=1&b=%FF', '/knowledge/content'))
    t.equal(await bodyText(absent), 'a=1&b=%FF', 'read but unchanged: the same bytes are passed on')
    t.ok(Buffer.isBuffer(absent.body?.content))
    const unscoped = await enforcer().plan(run(alice, 'user_id=x', '/knowledge/content'))
    t.equal(unscoped.body, undefined)
  },
)

void t.test('ISO-2: every byte of other fields survives (latin1, raw high bytes)', async (t) => {
  const raw = Buffer.concat([
    Buffer.from('a=\u00ff\u0000&user_id=x&b=', 'latin1'),
    Buffer.from([0xc3, 0x28, 0x80]),
    Buffer.from(';c=%zz'),
  ])
  const plan = await enforcer().plan(run(jwtUser('é'), raw))
  const out = plan.body?.content as Buffer
  const expected = Buffer.concat([
    Buffer.from('a=\u00ff\u0000', 'latin1'),
    Buffer.from('&b='),
    Buffer.from([0xc3, 0x28, 0x80]),
    Buffer.from(';c=%zz&user_id=%C3%A9'),
  ])
  t.same(out.toString('hex'), expected.toString('hex'))
})

void t.test('ISO-3: a scoped gate reads session_id from the form', async (t) => {
  const gateway = enforcer({ auth: { user_isolation: true } })
  const alice = jwtUser('alice')
  const ok = await gateway.plan(run(alice, 'session_id=s1', '/agents/a1/runs/r1/cancel'))
  t.equal(await bodyText(ok), 'session_id=s1')
  for (const body of ['', 'session_id=', 'x=1']) {
    const error = await refusal(() => gateway.plan(run(alice, body, '/agents/a1/runs/r1/cancel')))
    t.equal(error.detail, 'session_id is required for this action', JSON.stringify(body))
  }
  const json = await gateway.plan(
    planInput({
      principal: alice,
      method: 'POST',
      path: '/agents/a1/runs/r1/resume',
      headers: { 'content-type': 'application/json' },
      body: '{"session_id":"s1"}',
    }),
  )
  t.equal(await bodyText(json), '{"session_id":"s1"}', 'a JSON session_id counts as well')
})

void t.test('ISO-2: 413 beyond max_body_bytes', async (t) => {
  const gateway = enforcer({ server: { max_body_bytes: 64 } })
  const principal = serviceAccount('bot')
  const exact = await gateway.plan(run(principal, `message=${'x'.repeat(56)}`))
  t.ok(exact.body, '64 bytes pass')
  const declared = await refusal(() => gateway.plan(run(principal, `message=${'x'.repeat(57)}`)))
  t.equal(declared.status, 413)
  t.equal(declared.detail, 'Request body too large')
  const chunked = await refusal(() =>
    gateway.plan(
      planInput({
        principal,
        method: 'POST',
        path: '/agents/a1/runs',
        headers: { ...FORM, 'transfer-encoding': 'chunked' },
        body: `message=${'x'.repeat(200)}`,
      }),
    ),
  )
  t.equal(chunked.status, 413, 'without Content-Length the read stops at the bound')
})
