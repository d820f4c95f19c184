/**
 * V3-SCOPE-1: the two rules AgentOS 3.0's `scopes.py` added, through the real gateway pinned to
 * 3.0 against the demo runtime as an open 3.0.0a3: `GET /metrics/refresh/status` needs
 * `metrics:read` (2.9 left it open to any authenticated caller) and `POST /components/{id}/restore`
 * needs `components:delete`.
 */
import t from 'tap'
import {
  ADMIN,
  forwarded,
  grants,
  ip,
  jConfig,
  jwt,
  mint,
  refused,
  stack30,
  startRuntime30,
} from './line-3.0.js'

const runtime = await startRuntime30(t)
const J = await stack30(t, runtime, jConfig({}, { service_accounts: { enabled: true } }))
const admin = await jwt([ADMIN], { sub: 'the-admin' })
const limited = await jwt(['agents:read', 'agents:run'])
const noScopes = await jwt([])
const defaultAccount = (await mint(J, admin, { name: 'scope-rules-default' })).token

/** A component the admin created and archived, for the restore route. */
const archived = await J.call('POST', '/components', {
  token: admin,
  json: { name: 'Archived helper', component_id: 'archived', component_type: 'agent', config: {} },
})
const archive = await J.call('DELETE', '/components/archived', { token: admin })
if (archived.status !== 201 || archive.status !== 204) {
  throw new Error(`setup: ${archived.status} ${archive.status}`)
}

void t.test(
  'V3-SCOPE-1 GET /metrics/refresh/status: limited, no scopes, default service account, metrics:write → 403ip(metrics:read)',
  async (t) => {
    const writer = await jwt(['metrics:write'])
    for (const token of [limited, noScopes, defaultAccount, writer]) {
      const reply = await J.call('GET', '/metrics/refresh/status', { token })
      refused(t, reply, 403, ip('metrics:read'))
    }
  },
)

void t.test(
  'V3-SCOPE-1 GET /metrics/refresh/status: metrics:read (JWT or service account) and the admin → 200',
  async (t) => {
    const reader = await mint(J, admin, {
      name: 'scope-rules-metrics',
      scopes: grants('metrics:read'),
    })
    for (const token of [await jwt(['metrics:read']), reader.token, admin]) {
      const reply = await J.call('GET', '/metrics/refresh/status', { token })
      forwarded(t, reply, 200, '/metrics/refresh/status')
    }
  },
)

void t.test(
  'V3-SCOPE-1 POST /components/{id}/restore: limited, no scopes, default service account, components:read, components:write → 403ip(components:delete)',
  async (t) => {
    const tokens = [
      limited,
      noScopes,
      defaultAccount,
      await jwt(['components:read']),
      await jwt(['components:read', 'components:write']),
    ]
    for (const token of tokens) {
      const reply = await J.call('POST', '/components/archived/restore', { token })
      refused(t, reply, 403, ip('components:delete'))
    }
  },
)

void t.test(
  'V3-SCOPE-1 POST /components/{id}/restore with components:delete → the upstream restores it (200), then answers 409; an unknown id is its 404',
  async (t) => {
    const token = await jwt(['components:delete'])
    const restored = await J.call('POST', '/components/archived/restore', { token })
    forwarded(t, restored, 200, '/components/archived/restore')
    t.match(restored.body, { component_id: 'archived', name: 'Archived helper' })
    t.notOk('deleted_at' in (restored.body as object), 'no longer archived')
    const again = await J.call('POST', '/components/archived/restore', { token })
    forwarded(t, again, 409)
    t.equal(again.detail, 'Component is not archived')
    const unknown = await J.call('POST', '/components/nope/restore', { token })
    forwarded(t, unknown, 404)
    t.equal(unknown.detail, 'Component nope not found')
  },
)
