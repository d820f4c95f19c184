/**
 * Startup validation through createGateway (CONF-1): a gateway that could not
 * implement its auth mode refuses to start instead of running open. The config loader's own rules
 * have their tests in test/unit/config; this is the same rule reached from code.
 */
import t from 'tap'
import { NO_CREDENTIAL_SOURCE } from '../../../src/config/auth-mode.js'
import { ConfigError } from '../../../src/config/load.js'
import type { Config } from '../../../src/config/schema.js'
import { createGateway } from '../../../src/gateway.js'
import { createLogger } from '../../../src/logger.js'
import { testConfig } from '../../helpers/gateway.js'
import { fixtures, publicJwk } from '../../helpers/jwt.js'

const logger = createLogger({ level: 'silent' })
const base = testConfig({
  auth: { security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
  service_accounts: { enabled: false },
})
const start = (config: Config) => createGateway(config, { logger, collectProcessMetrics: false })

void t.test('authorization without a JWT source: the loader refuses the file', async (t) => {
  let thrown: unknown
  try {
    testConfig({
      auth: { authorization: true, security_key: 'k-0123456789abcdef0123456789abcdef' },
    })
  } catch (error) {
    thrown = error
  }
  t.ok(thrown instanceof ConfigError)
  t.match(
    (thrown as Error).message,
    /auth\.authorization: JWT authorization requires a JWT verification source/,
  )
})

void t.test(
  'authorization without a JWT source: createGateway refuses a config built in code',
  async (t) => {
    const config: Config = {
      ...base,
      auth: { ...base.auth, security_key: null, authorization: true },
    }
    await t.rejects(start(config), /JWT authorization requires a JWT verification source/)
  },
)

void t.test(
  'no credential source at all: createGateway refuses rather than run open',
  async (t) => {
    const withStore: Config = {
      ...base,
      auth: { ...base.auth, security_key: null },
      service_accounts: { ...base.service_accounts, enabled: true },
    }
    await t.rejects(start(withStore), { message: NO_CREDENTIAL_SOURCE }, 'open only when asked')
    const openWithoutStore: Config = {
      ...base,
      auth: { ...base.auth, security_key: null, open: true },
    }
    await t.rejects(start(openWithoutStore), /at least one credential source is required/)
  },
)

void t.test(
  'keys that cannot verify the configured algorithm: createGateway says which',
  async (t) => {
    const pem = testConfig({
      auth: { algorithm: 'HS256', verification_keys: [fixtures.rsaPublicPem()] },
      service_accounts: { enabled: false },
    })
    await t.rejects(
      start(pem),
      /auth\.verification_keys\[0\]: looks like a PEM or SSH key, but HS256 needs a shared secret/,
    )
    const dir = t.testdir({
      'jwks.json': JSON.stringify({ keys: [publicJwk(fixtures.rsaPublicPem())] }),
    })
    const wrongFamily = testConfig({
      auth: { algorithm: 'ES256', jwks_file: `${dir}/jwks.json` },
      service_accounts: { enabled: false },
    })
    await t.rejects(start(wrongFamily), /holds no key usable with auth\.algorithm ES256/)
  },
)

void t.test('a valid config starts', async (t) => {
  const gateway = await start(base)
  t.teardown(() => gateway.stop())
  const running = await gateway.start()
  t.ok(running.port > 0)
})
