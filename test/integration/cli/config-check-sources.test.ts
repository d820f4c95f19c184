/**
 * `portcullis config check` and `serve` on the files and addresses a configuration names: the
 * identity provider on a private address without the opt-in (every JWT would get 503), signing
 * keys that are no private keys, a CA file without a certificate. Both exit 2 with the same line.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { checkAndServeRefuse, tempDir } from '../../helpers/check-and-serve.js'
import { fixtures, publicJwk } from '../../helpers/jwt.js'

const CANNOT = 'portcullis: the configuration cannot be applied: '

void t.test('an address, signing keys, a CA file: check and serve agree', async (t) => {
  const dir = tempDir(t)
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  const publicKeys = file(
    'public-jwks.json',
    JSON.stringify({ keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'r' })] }),
  )
  const notACertificate = file('ca.pem', 'not a certificate\n')
  const caConfig = file(
    'ca.yaml',
    `auth: {jwks_url: "https://idp.example/jwks.json", jwks_allow_private_addresses: true, jwks_ca_file: ${notACertificate}}\n`,
  )
  await checkAndServeRefuse(t, join(dir, 'db'), [
    {
      what: 'a jwks_url that resolves to a private address, without the opt-in',
      config: file('private-idp.yaml', 'auth: {jwks_url: "http://localhost:9/jwks.json"}\n'),
      env: {},
      line: `${CANNOT}auth.jwks_url: localhost resolves to the non-public address 127.0.0.1; set auth.jwks_allow_private_addresses: true if the identity provider is meant to be there (an in-cluster Keycloak or Dex)`,
    },
    {
      what: 'identity-assertion signing keys that are no private keys',
      config: file(
        'signing.yaml',
        `auth: {jwks_file: ${publicKeys}}\nidentity: {assertion: {enabled: true, algorithm: RS256, signing_keys_file: ${publicKeys}}}\n`,
      ),
      env: {},
      line: `${CANNOT}${publicKeys}: key 0 is not a private key`,
    },
    {
      what: 'a CA file that holds no certificate (a rule: refused before any key is built)',
      config: caConfig,
      env: {},
      line: `invalid configuration in ${caConfig}: auth.jwks_ca_file: ${notACertificate} holds no PEM certificate`,
    },
  ])
})
