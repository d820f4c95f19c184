import t from 'tap'
import { z } from 'zod'
import { identitySchema } from '../../../src/config/sections/identity.js'
import { testConfig } from './helpers.js'

void t.test('IDENT-4: the identity block and its defaults', async (t) => {
  t.same(testConfig().identity, {
    forward_credentials: false,
    strip_headers: [
      'X-Remote-User',
      'X-Forwarded-User',
      'X-Forwarded-Email',
      'X-Forwarded-Groups',
      'X-Forwarded-Preferred-Username',
      'X-Auth-Request-User',
      'X-Auth-Request-Email',
    ],
    assertion: {
      enabled: false,
      header: 'X-Auth-Assertion',
      algorithm: 'ES256',
      issuer: 'portcullis',
      audience: null,
      lifetime_seconds: 60,
      rotation_hours: 24,
      signing_keys_file: null,
    },
  })
  for (const invalid of [
    { strip_headers: ['Bad Header'] },
    { assertion: { algorithm: 'HS256' } },
    { assertion: { lifetime_seconds: 0 } },
    { assertion: { rotation_hours: 0 } },
    { assertion: { unknown: true } },
    { forward_credential: true },
  ]) {
    t.notOk(identitySchema.safeParse(invalid).success, JSON.stringify(invalid))
  }
})

void t.test('IDENT-4: every key is described', async (t) => {
  const schema = z.toJSONSchema(identitySchema, { io: 'input' }) as JsonSchema
  const undescribed: string[] = []
  const walk = (node: JsonSchema, path: string) => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      if (child.description === undefined) undescribed.push(`${path}${key}`)
      walk(child, `${path}${key}.`)
    }
  }
  walk(schema, '')
  t.same(undescribed, [])
})

interface JsonSchema {
  description?: string
  properties?: Record<string, JsonSchema>
}
