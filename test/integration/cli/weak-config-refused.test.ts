/**
 * A gateway never runs open because a secret is missing, nor with a secret anyone could guess:
 * the shipped configuration with OS_SECURITY_KEY unset or empty (a Secret that was not mounted),
 * or set to a short key, is refused by `config check` and `serve` alike, in one line saying what
 * to do. (Open mode asked for: test/integration/ops/open-mode.test.ts.)
 */
import { join } from 'node:path'
import t from 'tap'
import { NO_CREDENTIAL_SOURCE } from '../../../src/config/auth-mode.js'
import { checkAndServeRefuse, tempDir } from '../../helpers/check-and-serve.js'

const SHIPPED = 'config/portcullis.yaml'

void t.test('no credential source, or a weak one: check and serve refuse', async (t) => {
  await checkAndServeRefuse(t, join(tempDir(t), 'db'), [
    {
      what: 'OS_SECURITY_KEY unset',
      config: SHIPPED,
      env: {},
      line: `invalid configuration in ${SHIPPED}: ${NO_CREDENTIAL_SOURCE}`,
    },
    {
      what: 'OS_SECURITY_KEY empty (a Secret that was not mounted)',
      config: SHIPPED,
      env: { OS_SECURITY_KEY: '' },
      line: `invalid configuration in ${SHIPPED}: ${NO_CREDENTIAL_SOURCE}`,
    },
    {
      what: 'OS_SECURITY_KEY=change-me',
      config: SHIPPED,
      env: { OS_SECURITY_KEY: 'change-me' },
      line: `invalid configuration in ${SHIPPED} and the environment: OS_SECURITY_KEY (environment variable for auth.security_key): too short (9 characters); a shared secret needs at least 32 random characters, make one with: openssl rand -base64 32`,
    },
  ])
})
