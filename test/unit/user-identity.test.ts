import t from 'tap'
import { ANONYMOUS, type Principal } from '../../src/principal.js'
import {
  MISSING_USER_IDENTITY,
  missesUserIdentity,
  missingUserIdentity,
} from '../../src/user-identity.js'
import { SECURITY_KEY_PRINCIPAL, serviceAccountPrincipal } from '../helpers/principals.js'
import { jwtUser } from './identity/helpers.js'

const refused = (principal: Principal, userIsolation = true): boolean =>
  missesUserIdentity(principal, 'os:admin', userIsolation)

void t.test('under user isolation only a scoped caller without a user id is refused', async (t) => {
  t.equal(refused(jwtUser(null, ['sessions:read'])), true, 'a JWT without sub')
  t.equal(refused(jwtUser('', ['sessions:read'])), true, 'an empty sub (AgentOS: `not user_id`)')
  t.equal(refused(jwtUser(null, [])), true, 'no scopes at all')
  t.equal(refused(jwtUser('alice', ['sessions:read'])), false, 'a user')
  t.equal(refused(jwtUser(null, ['os:admin'])), false, 'an admin is never scoped')
  t.equal(refused(jwtUser(null, ['agent_os:admin'])), true, 'only the configured admin scope')
  t.equal(refused(SECURITY_KEY_PRINCIPAL), false, 'the security key: an unscoped root')
  t.equal(refused(serviceAccountPrincipal('ci')), false, 'a token is sa:<name>')
  t.equal(refused(ANONYMOUS), false, 'anonymous: no identity to miss')
})

void t.test('without user isolation nobody is refused', async (t) => {
  t.equal(refused(jwtUser(null, ['sessions:read']), false), false)
  t.equal(refused(jwtUser('', []), false), false)
})

void t.test('the refusal is AgentOS’s 403', async (t) => {
  t.match(missingUserIdentity(), {
    code: 'ACCESS_DENIED',
    status: 403,
    detail: MISSING_USER_IDENTITY,
    reason: 'identity.missing_user',
  })
})
