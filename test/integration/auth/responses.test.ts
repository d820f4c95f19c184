/**
 * What the gateway does to responses: listing filters on the upstream's JSON, `/info`'s auth_mode
 * in every mode, and CORS headers on the gateway's own errors with configurable origins.
 */
import t from 'tap'
import { startRuntime } from '../../helpers/runtime.js'
import { SUITE_RUNTIME_VERSIONS } from '../../helpers/suite-line.js'
import { ids, ip, jConfig, jwt, sConfig, stack, withDatabase } from '../../conformance/fixtures.js'

const runtime = await startRuntime(t)
const J = await stack(
  t,
  runtime,
  jConfig({ internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' }),
)

void t.test(
  'listings: the upstream answers everything, the gateway keeps what the caller may see',
  async (t) => {
    const token = await jwt(['agents:a2:read', 'teams:t1:read', 'workflows:w9:read'])
    const agents = await J.call('GET', '/agents', {
      token,
      headers: { 'accept-encoding': 'gzip, br' },
    })
    t.equal(agents.status, 200)
    t.same(ids(agents.body), ['a2'])
    t.equal(
      agents.upstream?.headers['accept-encoding'],
      undefined,
      'asked uncompressed, to be read',
    )
    t.equal(
      Number(agents.headers['content-length']),
      Buffer.byteLength(agents.text),
      'length of the filtered body',
    )
    t.same(ids((await J.call('GET', '/teams', { token })).body), ['t1'])
    const workflows = await J.call('GET', '/workflows', { token })
    t.equal(workflows.status, 200)
    t.same(workflows.body, [], 'an id the upstream does not list filters to nothing, not to 403')
    const run = await J.call('GET', '/agents', { token: await jwt(['agents:run']) })
    t.equal(run.status, 403)
    t.equal(run.detail, ip('agents:read'))
    t.equal(run.upstream, undefined)
  },
)

void t.test(
  'listings: a global or wildcard scope, the admin and the scheduler see the upstream list as is',
  async (t) => {
    for (const token of [
      await jwt(['agents:read']),
      await jwt(['agents:*:read']),
      await jwt(['os:admin']),
      'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
    ]) {
      const reply = await J.call('GET', '/agents', { token })
      t.equal(reply.status, 200)
      t.same(ids(reply.body), ['a1', 'a2'])
    }
  },
)

void t.test('GET /info reports the gateway’s auth mode in every mode', async (t) => {
  const modes: [string, Record<string, unknown>, Record<string, string>][] = [
    ['jwt', jConfig(), {}],
    ['jwt', jConfig({ verification_keys: null, validate: false, authorization: null }), {}],
    [
      'jwt',
      { auth: { algorithm: 'HS256' }, service_accounts: { enabled: false } },
      { JWT_VERIFICATION_KEY: 'k'.repeat(32) },
    ],
    ['security_key', sConfig(), {}],
    [
      'security_key',
      { service_accounts: { enabled: false } },
      { OS_SECURITY_KEY: 'from-env-security-key-4a8c2e6f0b3d7a1c' },
    ],
    ['none', { ...withDatabase(t), auth: { open: true } }, {}],
  ]
  for (const [mode, config, env] of modes) {
    const gateway = await stack(t, runtime, config, env)
    const info = await gateway.call('GET', '/info')
    t.equal(info.status, 200)
    t.match(
      info.body,
      { auth_mode: mode, os_id: 'demo-os', version: SUITE_RUNTIME_VERSIONS.runtimeVersion },
      mode,
    )
    // AgentOS's field keeps AgentOS's value; the gateway's own says when it runs open.
    t.same(
      (info.body as { portcullis?: unknown }).portcullis,
      mode === 'none' ? { auth: 'open' } : undefined,
      `${mode}: portcullis.auth`,
    )
    t.equal(info.upstream?.path, '/info', 'answered by the upstream, rewritten')
    t.equal(Number(info.headers['content-length']), Buffer.byteLength(info.text))
  }
})

const CORS = {
  'access-control-allow-credentials': 'true',
  'access-control-allow-methods': '*',
  'access-control-allow-headers': '*',
  'access-control-expose-headers': '*',
}

function corsOf(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => name.startsWith('access-control-')),
  )
}

void t.test(
  'CORS on gateway errors: the configured origins only, on 401, 403 and 400',
  async (t) => {
    const custom = await stack(
      t,
      runtime,
      jConfig({}, { cors: { allowed_origins: ['https://app.example'] } }),
    )
    const origin = { origin: 'https://app.example' }
    const errors = [
      await custom.call('GET', '/agents', { headers: origin }),
      await custom.call('GET', '/agents', { headers: origin, token: await jwt([]) }),
      await custom.call('GET', '/agents/%2e%2e/config', { headers: origin }),
    ]
    t.same(
      errors.map((reply) => reply.status),
      [401, 403, 400],
    )
    for (const reply of errors) {
      t.same(corsOf(reply.headers), {
        'access-control-allow-origin': 'https://app.example',
        ...CORS,
      })
    }
    const defaultOrigin = await custom.call('GET', '/agents', {
      headers: { origin: 'http://localhost:3000' },
    })
    t.same(corsOf(defaultOrigin.headers), {}, 'the configured list replaces the defaults')
  },
)

void t.test('CORS on gateway errors: an empty list allows every origin', async (t) => {
  const open = await stack(t, runtime, jConfig({}, { cors: { allowed_origins: [] } }))
  const reply = await open.call('GET', '/agents', {
    headers: { origin: 'https://anywhere.example' },
  })
  t.equal(reply.status, 401)
  t.same(corsOf(reply.headers), {
    'access-control-allow-origin': 'https://anywhere.example',
    ...CORS,
  })
  const noOrigin = await open.call('GET', '/agents')
  t.same(corsOf(noOrigin.headers), {}, 'no Origin, no CORS headers')
})
