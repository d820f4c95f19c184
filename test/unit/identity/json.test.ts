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

const JSON_TYPE = { 'content-type': 'application/json' }
const isolated = () => enforcer({ auth: { user_isolation: true } })
const send = (
  principal: Principal,
  method: string,
  path: string,
  body: string,
  headers = JSON_TYPE,
) => planInput({ principal, method, path, headers, body })

void t.test('ISO-2: POST /sessions takes the caller id (ISO-2)', async (t) => {
  const gateway = isolated()
  const body = '{ "session_name" : "n",\n "user_id":"someone-else", "n": 1.50e+3 }'
  const userA = await gateway.plan(send(jwtUser('user-a'), 'POST', '/sessions', body))
  t.equal(await bodyText(userA), '{ "session_name" : "n",\n "user_id":"user-a", "n": 1.50e+3 }')
  const admin = await gateway.plan(send(ADMIN, 'POST', '/sessions', body))
  t.match(await bodyText(admin), /"user_id":"root"/, 'admins too (7.2 [P])')
  const absent = await enforcer().plan(
    send(jwtUser('bob'), 'POST', '/sessions', '{"a":[1,{"user_id":"deep"}]}'),
  )
  t.equal(
    await bodyText(absent),
    '{"user_id":"bob","a":[1,{"user_id":"deep"}]}',
    'inserted first; nested ones untouched',
  )
  const empty = await enforcer().plan(send(jwtUser('bob'), 'POST', '/sessions', ' {} '))
  t.equal(await bodyText(empty), ' {"user_id":"bob"} ')
  for (const principal of [ANONYMOUS, SECURITY_KEY]) {
    t.equal(
      (await gateway.plan(send(principal, 'POST', '/sessions', body))).body,
      undefined,
      principal.kind,
    )
  }
})

void t.test('ISO-2: memories writes pin the scoped id even when absent (ISO-2)', async (t) => {
  const gateway = isolated()
  const userB = jwtUser('user-b')
  const foreignDelete = '{"memory_ids":["m-a"],"user_id":"user-a"}'
  const deleted = await gateway.plan(send(userB, 'DELETE', '/memories', foreignDelete))
  t.equal(
    await bodyText(deleted),
    '{"memory_ids":["m-a"],"user_id":"user-b"}',
    '161: a foreign delete becomes a no-op',
  )
  const admin = await gateway.plan(send(ADMIN, 'DELETE', '/memories', foreignDelete))
  t.equal(admin.body, undefined, '161: the admin acts on behalf')
  const cases: [string, string][] = [
    ['POST', '/memories'],
    ['PATCH', '/memories/m1'],
    ['POST', '/optimize-memories'],
  ]
  for (const [method, path] of cases) {
    const plan = await gateway.plan(send(userB, method, path, '{"memory":"x"}'))
    t.equal(await bodyText(plan), '{"user_id":"user-b","memory":"x"}', `${method} ${path}`)
  }
  const pat = await enforcer().plan(
    send(serviceAccount('bot'), 'POST', '/memories', '{"memory":"x"}'),
  )
  t.match(await bodyText(pat), /"user_id":"sa:bot"/, 'service accounts without isolation')
})

void t.test('ISO-2: other routes replace a scoped top-level user_id when present', async (t) => {
  const gateway = isolated()
  const alice = jwtUser('alice')
  const present = await gateway.plan(
    send(alice, 'POST', '/evals', '{"user_id":1,"x":"\\u00e9","user\\u005fid":null}'),
  )
  t.equal(
    await bodyText(present),
    '{"user_id":"alice","x":"\\u00e9","user\\u005fid":"alice"}',
    'escaped and duplicate keys',
  )
  const absent = await gateway.plan(send(alice, 'POST', '/evals', '{"x":1}'))
  t.equal(await bodyText(absent), '{"x":1}')
  const noType = await gateway.plan(
    send(alice, 'POST', '/evals', '{"user_id":"b"}', {} as typeof JSON_TYPE),
  )
  t.equal(
    await bodyText(noType),
    '{"user_id":"alice"}',
    'FastAPI reads a body without Content-Type as JSON',
  )
  const plusJson = await gateway.plan(
    send(alice, 'POST', '/evals', '{"user_id":"b"}', {
      'content-type': 'Application/Vnd.X+JSON; charset=utf-8',
    }),
  )
  t.equal(await bodyText(plusJson), '{"user_id":"alice"}')
  const pythonSpace = await gateway.plan(
    send(alice, 'POST', '/evals', '{"user_id":"b"}', {
      'content-type': '\u0085application/json\u00a0',
    }),
  )
  t.equal(
    await bodyText(pythonSpace),
    '{"user_id":"alice"}',
    'stripped as Python strips, not as trim()',
  )
  const text = await gateway.plan(
    send(alice, 'POST', '/evals', '{"user_id":"b"}', { 'content-type': 'text/plain' }),
  )
  t.equal(text.body, undefined)
})

void t.test('ISO-2: what Python accepts is pinned; what it refuses passes untouched', async (t) => {
  const gateway = enforcer()
  const principal = jwtUser('bob')
  const cases: [string, string | undefined][] = [
    ['{"user_id":"x","n":NaN,"m":-Infinity}', '{"user_id":"bob","n":NaN,"m":-Infinity}'],
    ['\ufeff{"user_id":"x"}', '\ufeff{"user_id":"bob"}'],
    ['{"user_id":"x",}', '{"user_id":"x",}'],
    ['{"user_id":"x"} {}', '{"user_id":"x"} {}'],
    ['{"a":01}', '{"a":01}'],
    ['{"a":"\u0001"}', '{"a":"\u0001"}'],
    ['[{"user_id":"x"}]', '[{"user_id":"x"}]'],
    ['"text"', '"text"'],
    ['{"a":[[[[[[{"b":"]"}]]]]]],"user_id":"x"}', '{"a":[[[[[[{"b":"]"}]]]]]],"user_id":"bob"}'],
  ]
  for (const [input, expected] of cases) {
    const plan = await gateway.plan(send(principal, 'POST', '/sessions', input))
    t.equal((plan.body?.content as Buffer).toString('utf8'), expected, input)
  }
  const utf16 = Buffer.from('{"user_id":"x"}', 'utf16le')
  const error = await refusal(() =>
    gateway.plan(
      planInput({
        principal,
        method: 'POST',
        path: '/sessions',
        headers: JSON_TYPE,
        body: utf16,
      }),
    ),
  )
  t.equal(
    error.status,
    400,
    'UTF-16, which json.loads detects, is refused rather than passed unpinned',
  )
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  const deepPlan = await gateway.plan(
    send(principal, 'POST', '/sessions', `{"a":${deep},"user_id":"x"}`),
  )
  t.match(await bodyText(deepPlan), /"user_id":"bob"}$/, 'no recursion limit')
})

void t.test('ISO-2: 413 beyond max_body_bytes', async (t) => {
  const gateway = enforcer({ server: { max_body_bytes: 32 } })
  const error = await refusal(() =>
    gateway.plan(send(jwtUser('bob'), 'POST', '/sessions', `{"x":"${'a'.repeat(40)}"}`)),
  )
  t.equal(error.status, 413)
  t.equal(error.detail, 'Request body too large')
})
