import { createHash } from 'node:crypto'
import t from 'tap'
import { identityFromClaim, scopesFromClaim } from '../../../../src/auth/jwt/jwt-claims.js'
import { signRawHs } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier, hs, J, K } from './setup.js'

/** Attack class 28 and JWT-10: how claims become a principal. */

void t.test('the scopes claim table', async (t) => {
  const { principal } = await createVerifier(t, J)
  const table: [unknown, string[]][] = [
    [
      ['agents:read', 'teams:read'],
      ['agents:read', 'teams:read'],
    ],
    ['agents:read', ['agents:read']],
    ['agents:read teams:read', ['agents:read teams:read']], // one scope, NOT split on spaces
    ['', ['']],
    [[], []],
    [['agents:read', 5, null, { a: 1 }, ['os:admin'], true], ['agents:read']],
    [42, []],
    [{ 'agents:read': true }, []],
    [null, []],
    [true, []],
  ]
  for (const [claim, expected] of table) {
    t.same((await principal(await hs({ scopes: claim }))).scopes, expected, JSON.stringify(claim))
    t.same(scopesFromClaim(claim), expected)
  }
  t.same((await principal(await hs({}))).scopes, [], 'missing → no scopes')
})

void t.test('a custom scopes claim (third-party providers)', async (t) => {
  const { principal } = await createVerifier(t, { ...J, scopes_claim: 'permissions' })
  const result = await principal(await hs({ permissions: ['agents:read'], scopes: ['os:admin'] }))
  t.same(result.scopes, ['agents:read'])
  const inherited = await createVerifier(t, {
    ...J,
    scopes_claim: 'constructor',
    user_id_claim: 'toString',
  })
  const plain = await inherited.principal(await hs({ sub: 'a' }))
  t.same(plain.scopes, [], 'never read from Object.prototype')
  t.equal(plain.userId, null)
})

void t.test('user and session ids', async (t) => {
  const { principal } = await createVerifier(t, {
    ...J,
    user_id_claim: 'uid',
    session_id_claim: 'sid',
  })
  const table: [unknown, string | null][] = [
    ['alice', 'alice'],
    [123, '123'],
    [1.5, '1.5'],
    [true, null],
    [null, null],
    [['alice'], null],
    [{ id: 'alice' }, null],
  ]
  for (const [value, expected] of table) {
    t.equal(identityFromClaim(value), expected)
    const result = await principal(await hs({ uid: 'u', sid: value, sub: 'ignored' }))
    t.equal(result.sessionId, expected, `sid ${JSON.stringify(value)}`)
    // A user id claim that is an object, a list or a boolean is refused (pyjwt-claim-parity).
    if (typeof value === 'object' && value !== null) continue
    if (typeof value === 'boolean') continue
    const user = await principal(await hs({ uid: value, sub: 'ignored' }))
    t.equal(user.userId, expected, `uid ${JSON.stringify(value)}`)
  }
  const error = await gatewayErrorOf(async () =>
    principal(await hs({ uid: 'sa:bot', sub: 'alice' })),
  )
  t.equal(error.detail, 'Invalid token subject', 'the reserved check reads the user id claim')
  t.equal((await principal(await hs({ uid: 'alice', sub: 'sa:bot' }))).userId, 'alice')
})

void t.test(
  'duplicate JSON keys: the last one wins, as in Python json and so in AgentOS',
  async (t) => {
    const { principal } = await createVerifier(t, J)
    const header = '{"alg":"HS256"}'
    const smuggled = signRawHs(header, '{"sub":"alice","sub":"sa:evil"}', K)
    t.equal((await gatewayErrorOf(() => principal(smuggled))).detail, 'Invalid token subject')
    const hidden = signRawHs(header, '{"sub":"sa:evil","sub":"alice"}', K)
    t.equal((await principal(hidden)).userId, 'alice')
    const scopes = signRawHs(header, '{"scopes":["os:admin"],"scopes":[]}', K)
    t.same((await principal(scopes)).scopes, [])
    const dupAlg = signRawHs('{"alg":"none","alg":"HS256"}', '{"sub":"a"}', K)
    t.equal(
      (await principal(dupAlg)).userId,
      'a',
      'header keys too: the alg checked is the alg jose sees',
    )
    const proto = signRawHs(header, '{"sub":"a","__proto__":{"scopes":["os:admin"]}}', K)
    const result = await principal(proto)
    t.same(result.scopes, [], 'a "__proto__" member is plain data')
  },
)

void t.test('the principal (AUTH-1)', async (t) => {
  const { principal, clock } = await createVerifier(t, {
    ...J,
    dependencies_claims: ['tenant', 'absent'],
    session_state_claims: ['plan', 'nullable'],
  })
  const exp = clock.seconds + 3600
  const claims = {
    sub: 'alice',
    session_id: 's1',
    scopes: ['agents:read'],
    exp,
    tenant: { id: 't1' },
    plan: 'pro',
    nullable: null,
    aud: 'os-1',
  }
  const token = await hs(claims)
  const result = await principal(token)
  t.same(result, {
    kind: 'jwt',
    authenticated: true,
    userId: 'alice',
    sessionId: 's1',
    scopes: ['agents:read'],
    authorizationEnabled: true,
    claims,
    dependencies: { tenant: { id: 't1' } },
    sessionState: { plan: 'pro', nullable: null },
    expiresAt: exp,
    credentialHash: createHash('sha256').update(token).digest().toString('latin1'),
  })
  t.ok(Object.isFrozen(result) && Object.isFrozen(result.claims) && Object.isFrozen(result.scopes))
  t.ok(
    Object.isFrozen(result.dependencies?.tenant),
    'nested claims too: cached principals are shared',
  )
  t.throws(() => (result.scopes as string[]).push('os:admin'))

  const bare = await principal(await hs({ sub: 'bob' }))
  t.notOk('dependencies' in bare, 'no dependencies key when no listed claim is present')
  t.notOk('sessionState' in bare)
})

void t.test('authorizationEnabled follows the auth mode', async (t) => {
  const off = await createVerifier(t, { verification_keys: [K], algorithm: 'HS256' })
  t.equal((await off.principal(await hs({ sub: 'a' }))).authorizationEnabled, false)
  const implied = await createVerifier(t, {
    verification_keys: [K],
    algorithm: 'HS256',
    scope_mappings: { 'GET /x': [] },
  })
  t.equal((await implied.principal(await hs({ sub: 'a' }))).authorizationEnabled, true)
})
