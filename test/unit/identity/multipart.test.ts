import t from 'tap'
import type { Principal } from '../../../src/principal.js'
import {
  ADMIN,
  ANONYMOUS,
  enforcer,
  field,
  jwtUser,
  multipartBody,
  parseMultipart,
  planInput,
  refusal,
  serviceAccount,
} from './helpers.js'

const BOUNDARY = 'XyZ-client-boundary'
const TYPE = { 'content-type': `multipart/form-data; boundary="${BOUNDARY}"` }
const fileHead = (name: string, filename: string, type: string) =>
  `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}`

async function rewritten(
  principal: Principal,
  parts: [string, string][],
  path = '/agents/a1/runs',
  sections = {},
) {
  const body = Buffer.from(multipartBody(BOUNDARY, parts), 'latin1')
  const plan = await enforcer(sections).plan(
    planInput({ principal, method: 'POST', path, headers: TYPE, body }),
  )
  const out = plan.body
  if (out === undefined) return undefined
  t.match(out.contentType, /^multipart\/form-data; boundary=----portcullis[0-9a-f]{24}$/)
  return parseMultipart(out.content, out.contentType ?? '')
}

void t.test(
  'ISO-2: spoofed user_id parts are replaced (one, several, after the file)',
  async (t) => {
    const bot = serviceAccount('bot')
    const png = fileHead('files', 'pic \\"1\\".png', 'image/png')
    const cases: { name: string; parts: [string, string][] }[] = [
      {
        name: 'one',
        parts: [
          [field('message'), 'hi'],
          [field('user_id'), 'victim'],
        ],
      },
      {
        name: 'several',
        parts: [
          [field('user_id'), 'v1'],
          [field('message'), 'hi'],
          [field('user_id'), 'v2'],
        ],
      },
      {
        name: 'after the file',
        parts: [
          [field('message'), 'hi'],
          [png, '\x89PNG\r\n--x'],
          [field('user_id'), 'late'],
        ],
      },
      {
        name: 'as a file',
        parts: [
          [field('message'), 'hi'],
          [fileHead('user_id', 'u.txt', 'text/plain'), 'victim'],
        ],
      },
    ]
    for (const { name, parts } of cases) {
      const out = await rewritten(bot, parts)
      t.same(
        out?.filter((part) => part.name === 'user_id'),
        [{ name: 'user_id', value: 'sa:bot' }],
        `${name}: exactly our user_id`,
      )
      t.same(
        out?.find((part) => part.name === 'message'),
        { name: 'message', value: 'hi' },
        `${name}: message kept`,
      )
    }
    const withFile = await rewritten(bot, cases[2]?.parts ?? [])
    const file = withFile?.find((part) => part.name === 'files')
    t.equal(file?.filename, 'pic "1".png', 'the filename is preserved')
    t.equal(file?.mimeType, 'image/png', 'the part content type is preserved')
    t.equal(file?.data?.toString('latin1'), '\x89PNG\r\n--x', 'the file bytes are preserved')
  },
)

void t.test('ISO-2: session claim, admins, anonymous callers and other routes', async (t) => {
  const claimed = await rewritten(jwtUser('alice', [], { sessionId: 'S' }), [
    [field('session_id'), 'mine'],
    [field('message'), 'hi'],
  ])
  t.same(claimed, [
    { name: 'user_id', value: 'alice' },
    { name: 'session_id', value: 'S' },
    { name: 'message', value: 'hi' },
  ])
  const admin = await rewritten(ADMIN, [[field('user_id'), 'x']])
  t.same(admin, [{ name: 'user_id', value: 'root' }], 'admins are overridden on runs (ISO-2)')
  t.equal(
    await rewritten(ANONYMOUS, [[field('user_id'), 'sa:x']]),
    undefined,
    'anonymous: untouched, not read',
  )
  const isolation = { auth: { user_isolation: true } }
  const inPlace = await rewritten(
    jwtUser('alice'),
    [
      [field('a'), '1'],
      [field('user_id'), 'x'],
      [field('b'), '2'],
      [field('user_id'), 'y'],
    ],
    '/knowledge/content',
    isolation,
  )
  t.same(
    inPlace?.map((part) => `${part.name}=${part.value}`),
    ['a=1', 'user_id=alice', 'b=2'],
    'replaced in place',
  )
  const absent = await rewritten(
    jwtUser('alice'),
    [[field('a'), '1']],
    '/knowledge/content',
    isolation,
  )
  t.same(absent, [{ name: 'a', value: '1' }], 'not added where the route does not own it')
})

void t.test('ISO-2: field bytes survive: latin1, UTF-8, declared charsets', async (t) => {
  const out = await rewritten(jwtUser('bob'), [
    [field('raw'), '\xff\xfe\x00caf\xc3\xa9'],
    [`${field('utf8')}\r\nContent-Type: text/plain; charset=utf-8`, 'caf\xc3\xa9 \xe6\x97\xa5'],
  ])
  t.equal(
    out?.find((part) => part.name === 'raw')?.value,
    '\xff\xfe\x00caf\xc3\xa9',
    'undeclared: byte for byte',
  )
  t.equal(
    out?.find((part) => part.name === 'utf8')?.value,
    'caf\xc3\xa9 \xe6\x97\xa5',
    'utf-8: same bytes',
  )
})

void t.test(
  'the request charset is declared as read: Starlette decodes fields with it',
  async (t) => {
    const body = multipartBody(BOUNDARY, [[field('message'), 'hi']])
    const headers = {
      'content-type': `multipart/form-data; charset=ISO-8859-1; boundary=${BOUNDARY}`,
    }
    const plan = await enforcer().plan(
      planInput({ principal: ADMIN, method: 'POST', path: '/agents/a1/runs', headers, body }),
    )
    t.match(plan.body?.contentType, /^multipart\/form-data; boundary=\S+; charset=latin-1$/)
    const unread = await refusal(() =>
      enforcer().plan(
        planInput({
          principal: jwtUser('bob'),
          method: 'POST',
          path: '/agents/a1/runs',
          headers: { 'content-type': `multipart/form-data; charset=koi8-r; boundary=${BOUNDARY}` },
          body,
        }),
      ),
    )
    t.same([unread.status, unread.reason], [400, 'identity.multipart_charset'])
  },
)

void t.test('ISO-3 with multipart: the gate reads the fields before answering', async (t) => {
  const sections = { auth: { user_isolation: true } }
  const path = '/agents/a1/runs/r1/continue'
  const ok = await rewritten(
    jwtUser('alice'),
    [
      [field('session_id'), 's1'],
      [field('tools'), '[]'],
    ],
    path,
    sections,
  )
  t.same(
    ok?.map((part) => part.name),
    ['user_id', 'session_id', 'tools'],
  )
  const error = await refusal(() =>
    rewritten(jwtUser('alice'), [[field('tools'), '[]']], path, sections),
  )
  t.equal(error.detail, 'session_id is required for this action')
})
