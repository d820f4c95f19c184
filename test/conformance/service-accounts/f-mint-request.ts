/** Checklist part F, lines 84–101: the mint request body and the 201 response, on both stores. */
import t, { type Test } from 'tap'
import { checkTokenShape, TOKEN_LENGTH } from '../../../src/service-accounts/token-format.js'
import { startRuntime } from '../../helpers/runtime.js'
import { ADMIN, AGENTOS_ADMIN, jConfig, jwt, stack, type Reply } from '../fixtures.js'
import {
  DEFAULT_SCOPES,
  firstIssue,
  onStore,
  grants,
  invalidBody,
  nowSeconds,
  refused,
} from './harness.js'

const runtime = await startRuntime(t)
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const DAY = 86_400
const RESPONSE_KEYS = [
  'id',
  'name',
  'principal',
  'user_id',
  'token_prefix',
  'scopes',
  'created_at',
  'expires_at',
  'last_used_at',
  // Portcullis's, beside the time it goes with; AgentOS clients ignore a key they do not know.
  'last_used_from',
  'revoked_at',
  'created_by',
  'token',
]

interface Minted {
  readonly reply: Reply
  readonly body: Record<string, unknown>
  /** Epoch seconds just before and just after the request. */
  readonly before: number
  readonly after: number
}

onStore(t, async (t, store) => {
  const J = await stack(t, runtime, jConfig({}, await store.section()))
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  let names = 0
  const post = (body: Record<string, unknown>): Promise<Reply> =>
    J.call('POST', '/service-accounts', { token: admin, json: body })
  /** A 201 mint under a name of its own (unless the body names one). */
  async function minted(t: Test, body: Record<string, unknown>): Promise<Minted> {
    names += 1
    const before = nowSeconds()
    const reply = await post({ name: `f-${names}`, ...body })
    const after = nowSeconds()
    t.equal(reply.status, 201, reply.status === 201 ? '201' : reply.text)
    t.equal(reply.upstream, undefined, '/service-accounts is answered by the gateway')
    return { reply, body: (reply.body ?? {}) as Record<string, unknown>, before, after }
  }
  const expiresIn = (t: Test, mint: Minted, days: number) => {
    const expiresAt = mint.body.expires_at as number
    t.ok(
      expiresAt >= mint.before + days * DAY && expiresAt <= mint.after + days * DAY,
      `expires_at ≈ now + ${days} d`,
    )
    t.equal(mint.body.expires_at, (mint.body.created_at as number) + days * DAY)
  }
  const raws = (body: Record<string, unknown>) =>
    (body.scopes as { raw: string }[]).map((scope) => scope.raw)

  void t.test(
    'MINT-1 admin JWT mints claude-code → 201 with the token, prefix, principal, owner, default scopes, 90-day expiry',
    async (t) => {
      const mint = await minted(t, { name: 'claude-code' })
      const body = mint.body
      const token = body.token as string
      t.match(token, /^svc_pat_[0-9A-Za-z]+$/, 'token starts svc_pat_')
      t.equal(token.length, TOKEN_LENGTH, `${TOKEN_LENGTH} characters`)
      t.equal(checkTokenShape(token), 'ok', 'its checksum is right')
      t.equal(body.token_prefix, token.slice(0, 16), 'token_prefix == token[:16]')
      t.equal(body.name, 'claude-code')
      t.equal(body.principal, 'sa:claude-code')
      t.equal(body.user_id, 'human-admin')
      t.equal(body.created_by, 'human-admin')
      t.same(raws(body), DEFAULT_SCOPES, 'the five default scopes, in order')
      t.strictSame((body.scopes as unknown[])[0], {
        id: null,
        raw: 'agents:run',
        namespace: 'agents',
        sub_namespace: null,
        permission: 'run',
        value: 'allow',
      })
      expiresIn(t, mint, 90)
      t.ok((body.created_at as number) >= mint.before && (body.created_at as number) <= mint.after)
      t.equal(body.last_used_at, null)
      t.equal(body.last_used_from, null)
      t.equal(body.revoked_at, null)
      t.match(body.id, UUID4, 'id is a uuid4')
    },
  )

  void t.test('MINT-1 the 201 keys are exactly AgentOS’s, in its order', async (t) => {
    const mint = await minted(t, {})
    t.strictSame(Object.keys(mint.body), RESPONSE_KEYS)
  })

  void t.test('MINT-1 expires_in_days 7 → 201, expires_at ≈ now + 7 d', async (t) => {
    expiresIn(t, await minted(t, { expires_in_days: 7 }), 7)
  })

  void t.test('MINT-1 never_expires → 201, expires_at null', async (t) => {
    const mint = await minted(t, { never_expires: true })
    t.equal(mint.body.expires_at, null)
  })

  void t.test(
    'MINT-5 expires_in_days null → 90 d; 0 → 422 greater_than_equal; 3651 → 422 less_than_equal',
    async (t) => {
      expiresIn(t, await minted(t, { expires_in_days: null }), 90)
      const loc = ['body', 'expires_in_days']
      invalidBody(t, await post({ name: 'f88-a', expires_in_days: 0 }), 'greater_than_equal', loc)
      invalidBody(t, await post({ name: 'f88-b', expires_in_days: 3651 }), 'less_than_equal', loc)
    },
  )

  void t.test('MINT-5 a 64-character name → 422 string_too_long', async (t) => {
    invalidBody(t, await post({ name: 'a'.repeat(64) }), 'string_too_long', ['body', 'name'])
    await minted(t, { name: 'a'.repeat(63) })
  })

  void t.test(
    'MINT-5 names that are not slugs → 422 with a clear message (deviation: AgentOS’s full app answers 500)',
    async (t) => {
      for (const name of [
        'Claude-Code',
        '__scheduler__',
        'sa:claude',
        'user@example.com',
        '-leading-dash',
        '',
      ]) {
        const reply = await post({ name })
        invalidBody(t, reply, 'value_error', ['body', 'name'])
        t.match(firstIssue(reply), { msg: /lowercase slug/, input: name }, JSON.stringify(name))
      }
    },
  )

  void t.test('SCOPE-1 unknown scopes → 400 "Invalid scope(s): …" in request order', async (t) => {
    refused(t, await post({ name: 'f91', scopes: grants('bogus') }), 400, 'Invalid scope(s): bogus')
    refused(
      t,
      await post({ name: 'f91', scopes: grants('bogus', 'a:b:c:d') }),
      400,
      'Invalid scope(s): bogus, a:b:c:d',
    )
  })

  void t.test('SCOPE-1 an empty scope → 400 "Invalid scope(s): "', async (t) => {
    refused(t, await post({ name: 'f92', scopes: grants('') }), 400, 'Invalid scope(s): ')
  })

  void t.test('MINT-2 sessions:write without the flag → 400 privileged (full text)', async (t) => {
    refused(
      t,
      await post({ name: 'f93', scopes: grants('sessions:write') }),
      400,
      'Privileged scope(s) require allow_privileged_scopes=true: sessions:write. Privileged tokens must be deliberate, never accidental.',
    )
  })

  void t.test(
    `MINT-2 without the flag: ${AGENTOS_ADMIN} (literally), ${ADMIN}, service_accounts:write, service_accounts:read, sessions:*:delete → 400; agents:my-agent:run → 201`,
    async (t) => {
      for (const scope of [
        AGENTOS_ADMIN,
        ADMIN,
        'service_accounts:write',
        'service_accounts:read',
        'sessions:*:delete',
      ]) {
        const reply = await post({ name: 'f94', scopes: grants(scope) })
        refused(
          t,
          reply,
          400,
          `Privileged scope(s) require allow_privileged_scopes=true: ${scope}. Privileged tokens must be deliberate, never accidental.`,
        )
      }
      const mint = await minted(t, { scopes: grants('agents:my-agent:run') })
      t.same(raws(mint.body), ['agents:my-agent:run'])
    },
  )

  void t.test(
    'MINT-2 mixed scopes without the flag → 400 listing only the privileged',
    async (t) => {
      const reply = await post({
        name: 'f95',
        scopes: grants('sessions:write', 'agents:run', 'service_accounts:read'),
      })
      refused(
        t,
        reply,
        400,
        'Privileged scope(s) require allow_privileged_scopes=true: sessions:write, service_accounts:read. Privileged tokens must be deliberate, never accidental.',
      )
    },
  )

  void t.test('MINT-5 bare-string scopes → 422', async (t) => {
    const reply = await post({ name: 'f96', scopes: ['agents:run'] })
    invalidBody(t, reply, 'model_attributes_type', ['body', 'scopes', 0])
  })

  void t.test(
    'MINT-5 effect "Allow" or null → 422 literal_error; effect "deny" → 422 with a clear message (deviation: AgentOS’s full app answers 500)',
    async (t) => {
      const loc = ['body', 'scopes', 0, 'effect']
      const capital = await post({
        name: 'f97',
        scopes: [{ scope: 'agents:run', effect: 'Allow' }],
      })
      invalidBody(t, capital, 'literal_error', loc)
      // Regression: an explicit null was taken for the default "allow".
      const none = await post({ name: 'f97', scopes: [{ scope: 'agents:run', effect: null }] })
      invalidBody(t, none, 'literal_error', loc)
      const deny = await post({ name: 'f97', scopes: [{ scope: 'agents:run', effect: 'deny' }] })
      invalidBody(t, deny, 'value_error', loc)
      t.match(firstIssue(deny), { msg: /only effect 'allow' is supported/ })
    },
  )

  void t.test('MINT-1 explicit and implied effect "allow" → 201, raws in order', async (t) => {
    const mint = await minted(t, {
      scopes: [{ scope: 'agents:run', effect: 'allow' }, { scope: 'sessions:read' }],
    })
    t.same(raws(mint.body), ['agents:run', 'sessions:read'])
    t.same(
      (mint.body.scopes as { value: string }[]).map((scope) => scope.value),
      ['allow', 'allow'],
    )
  })

  void t.test('MINT-1 agents:my-agent:run → ScopeSchema with sub_namespace my-agent', async (t) => {
    const mint = await minted(t, { scopes: grants('agents:my-agent:run') })
    t.strictSame(mint.body.scopes, [
      {
        id: null,
        raw: 'agents:my-agent:run',
        namespace: 'agents',
        sub_namespace: 'my-agent',
        permission: 'run',
        value: 'allow',
      },
    ])
  })

  void t.test('MINT-1 scopes [] → 201 with no scopes (not the defaults)', async (t) => {
    const mint = await minted(t, { scopes: [] })
    t.strictSame(mint.body.scopes, [])
  })

  void t.test('MINT-1 an unknown body field is ignored → 201', async (t) => {
    const mint = await minted(t, { colour: 'blue', scopes: grants('agents:run') })
    t.equal(mint.body.colour, undefined)
    t.strictSame(Object.keys(mint.body), RESPONSE_KEYS)
  })
})
