import t, { type Test } from 'tap'
import { ANONYMOUS, type Principal } from '../../src/principal.js'
import { assertUserIdentity, MISSING_USER_IDENTITY } from '../../src/user-identity.js'
import { SECURITY_KEY_PRINCIPAL, serviceAccountPrincipal } from '../helpers/principals.js'
import { jwtUser } from './identity/helpers.js'

/** Whether the caller is refused; a refusal must be AgentOS's 403. */
const refusal =
  (t: Test) =>
  (principal: Principal, userIsolation: boolean): boolean => {
    try {
      assertUserIdentity(principal, 'os:admin', userIsolation)
      return false
    } catch (error) {
      t.match(error, { code: 'ACCESS_DENIED', status: 403, detail: MISSING_USER_IDENTITY })
      return true
    }
  }

void t.test('under user isolation only a scoped caller without a user id is refused', async (t) => {
  const refuses = refusal(t)
  t.equal(refuses(jwtUser(null, ['sessions:read']), true), true, 'a JWT without sub')
  t.equal(refuses(jwtUser('', ['sessions:read']), true), true, 'an empty sub')
  t.equal(refuses(jwtUser(null, []), true), true, 'no scopes at all')
  t.equal(refuses(jwtUser('alice', ['sessions:read']), true), false, 'a user')
  t.equal(refuses(jwtUser(null, ['os:admin']), true), false, 'an admin is never scoped')
  t.equal(refuses(jwtUser(null, ['agent_os:admin']), true), true, 'only the admin scope')
  t.equal(refuses(SECURITY_KEY_PRINCIPAL, true), false, 'the security key: an unscoped root')
  t.equal(refuses(serviceAccountPrincipal('ci'), true), false, 'a token is sa:<name>')
  t.equal(refuses(ANONYMOUS, true), false, 'anonymous: no identity to miss')
})

void t.test('without user isolation nobody is refused', async (t) => {
  const refuses = refusal(t)
  t.equal(refuses(jwtUser(null, ['sessions:read']), false), false)
  t.equal(refuses(jwtUser('', []), false), false)
})
