/**
 * Checklist part F, lines 102–118: who may mint what (the subset rule, the check order, the
 * fixtures J, S, O and a gateway with service accounts off), on both stores.
 */
import t, { type Test } from 'tap'
import { startRuntime } from '../../helpers/runtime.js'
import {
  ADMIN,
  AGENTOS_ADMIN,
  ip,
  jConfig,
  oConfig,
  jwt,
  sConfig,
  stack,
  type Stack,
} from '../fixtures.js'
import { DEFAULT_SCOPES, onStore, grants, mint, refused, seedAccount } from './harness.js'

const runtime = await startRuntime(t)
const cannotGrant = (...scopes: string[]) =>
  `Cannot grant scope(s) you do not hold: ${scopes.join(', ')}`
const NOT_AVAILABLE =
  'Service Accounts not available: pass a `db` to AgentOS to enable this feature.'

onStore(t, async (t, store) => {
  const J = await stack(t, runtime, jConfig({}, await store.section()))
  const S = await stack(t, runtime, sConfig(await store.section()))
  const O = await stack(t, runtime, oConfig(await store.section()))
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const post = (fixture: Stack, token: string | undefined, body: Record<string, unknown>) =>
    fixture.call('POST', '/service-accounts', {
      ...(token === undefined ? {} : { token }),
      json: body,
    })
  const created = (t: Test, reply: { status: number; text: string }) =>
    t.equal(reply.status, 201, reply.status === 201 ? '201' : reply.text)

  void t.test('MINT-6 a duplicate active name → 409 with the rotate hint', async (t) => {
    created(t, await post(J, admin, { name: 'claude-code' }))
    refused(
      t,
      await post(J, admin, { name: 'claude-code' }),
      409,
      "An active service account named 'claude-code' already exists. Revoke it first to rotate.",
    )
  })

  void t.test(
    'MINT-7 S root (security key) mints sessions:write with the flag → 201',
    async (t) => {
      const reply = await post(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', {
        name: 'f103',
        scopes: grants('sessions:write'),
        allow_privileged_scopes: true,
      })
      created(t, reply)
      t.match(reply.body, { scopes: [{ raw: 'sessions:write' }] })
    },
  )

  void t.test(
    `MINT-7 S root mints ${AGENTOS_ADMIN} with the flag → 201, user_id and created_by null`,
    async (t) => {
      const reply = await post(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', {
        name: 'ci',
        scopes: grants(AGENTOS_ADMIN),
        allow_privileged_scopes: true,
      })
      created(t, reply)
      t.match(reply.body, { name: 'ci', user_id: null, created_by: null })
    },
  )

  void t.test(
    'MINT-7 O, no credential → 401 "JWT authentication is required…", whatever the body',
    async (t) => {
      const detail = 'JWT authentication is required to mint a service account.'
      refused(t, await post(O, undefined, { name: 'ci' }), 401, detail)
      refused(t, await post(O, undefined, { name: 'ci', never_expires: true }), 401, detail)
      const adminBody = { name: 'ci', scopes: grants(ADMIN), allow_privileged_scopes: true }
      refused(t, await post(O, undefined, adminBody), 401, detail)
    },
  )

  void t.test('MINT-7 J, JWT(agents:run) → 403ip(service_accounts:write)', async (t) => {
    const reply = await post(J, await jwt(['agents:run']), { name: 'f106' })
    refused(t, reply, 403, ip('service_accounts:write'))
  })

  void t.test(
    'MINT-4 J, JWT(service_accounts:write, agents:run): agents:run → 201 owned by the minter; teams:run → 403; admin → 403',
    async (t) => {
      const minter = await jwt(['service_accounts:write', 'agents:run'], {
        sub: 'delegated-minter',
      })
      const ok = await post(J, minter, { name: 'f107', scopes: grants('agents:run') })
      created(t, ok)
      t.match(ok.body, { user_id: 'delegated-minter', created_by: 'delegated-minter' })
      const teams = await post(J, minter, { name: 'f107-b', scopes: grants('teams:run') })
      refused(t, teams, 403, cannotGrant('teams:run'))
      for (const scope of [AGENTOS_ADMIN, ADMIN]) {
        const body = { name: 'f107-c', scopes: grants(scope), allow_privileged_scopes: true }
        refused(t, await post(J, minter, body), 403, cannotGrant(scope))
      }
    },
  )

  void t.test(
    'MINT-4 the same caller asking for the defaults → 403 listing the four missing',
    async (t) => {
      const minter = await jwt(['service_accounts:write', 'agents:run'], {
        sub: 'delegated-minter',
      })
      refused(
        t,
        await post(J, minter, { name: 'f108' }),
        403,
        cannotGrant('teams:run', 'workflows:run', 'sessions:read', 'config:read'),
      )
    },
  )

  void t.test(
    'MINT-4 agents:*:run may grant agents:z:run; agents:run may grant agents:*:run',
    async (t) => {
      const wildcard = await jwt(['service_accounts:write', 'agents:*:run'])
      created(t, await post(J, wildcard, { name: 'f109-a', scopes: grants('agents:z:run') }))
      const global = await jwt(['service_accounts:write', 'agents:run'])
      created(t, await post(J, global, { name: 'f109-b', scopes: grants('agents:*:run') }))
    },
  )

  void t.test(
    'MINT-4 agents:my-agent:run grants only itself: other agent, wildcard and global → 403',
    async (t) => {
      const narrow = await jwt(['service_accounts:write', 'agents:my-agent:run'])
      created(t, await post(J, narrow, { name: 'f110', scopes: grants('agents:my-agent:run') }))
      for (const scope of ['agents:other-agent:run', 'agents:*:run', 'agents:run']) {
        const reply = await post(J, narrow, { name: 'f110-x', scopes: grants(scope) })
        refused(t, reply, 403, cannotGrant(scope))
      }
    },
  )

  void t.test('MINT-4 service_accounts:write may grant itself with the flag → 201', async (t) => {
    const writer = await jwt(['service_accounts:write'])
    const body = {
      name: 'f111',
      scopes: grants('service_accounts:write'),
      allow_privileged_scopes: true,
    }
    created(t, await post(J, writer, body))
  })

  void t.test(
    'MINT-7 J and S: a default-scope token (PATd) minting → 403ip(service_accounts:write)',
    async (t) => {
      for (const [label, fixture, root] of [
        ['J', J, admin],
        ['S', S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d'],
      ] as const) {
        const patd = await mint(fixture, root, { name: `f112-${label.toLowerCase()}` })
        refused(
          t,
          await post(fixture, patd.token, { name: `f112-${label}-child`.toLowerCase() }),
          403,
          ip('service_accounts:write'),
        )
      }
    },
  )

  void t.test(`MINT-7 J: an admin token (${ADMIN} + flag) can list, mint and revoke`, async (t) => {
    const body = { name: 'f113-admin', scopes: grants(ADMIN), allow_privileged_scopes: true }
    const root = await mint(J, admin, body)
    const list = await J.call('GET', '/service-accounts', { token: root.token })
    t.equal(list.status, 200, 'list 200')
    const child = await post(J, root.token, { name: 'f113-child' })
    created(t, child)
    t.match(child.body, { user_id: 'sa:f113-admin', created_by: 'sa:f113-admin' })
    const id = (child.body as { id: string }).id
    const revoke = await J.call('DELETE', `/service-accounts/${id}`, { token: root.token })
    t.equal(revoke.status, 204, 'revoke 204')
  })

  void t.test(
    'MINT-1 check order: invalid before privileged before the subset rule before the 409',
    async (t) => {
      const nonHolder = await jwt(['service_accounts:write'])
      const invalid = await post(J, nonHolder, {
        name: 'f114',
        scopes: grants('bogus', 'sessions:write'),
      })
      refused(t, invalid, 400, 'Invalid scope(s): bogus')
      const privileged = await post(J, nonHolder, {
        name: 'f114',
        scopes: grants('sessions:write'),
      })
      t.equal(privileged.status, 400)
      t.match(privileged.detail, /^Privileged scope\(s\) require allow_privileged_scopes=true/)
      created(t, await post(J, admin, { name: 'f114-taken' }))
      const taken = await post(J, nonHolder, { name: 'f114-taken', scopes: grants('teams:run') })
      refused(t, taken, 403, cannotGrant('teams:run'))
    },
  )

  void t.test(
    `MINT-4 J with JWT RBAC off: JWT([]) minting the defaults → 403 listing all five; JWT(${ADMIN}) → 201`,
    async (t) => {
      const fixture = await stack(
        t,
        runtime,
        jConfig({ authorization: false }, await store.section()),
      )
      refused(
        t,
        await post(fixture, await jwt([]), { name: 'f115' }),
        403,
        cannotGrant(...DEFAULT_SCOPES),
      )
      created(t, await post(fixture, await jwt([ADMIN]), { name: 'f115' }))
    },
  )

  void t.test(
    'MINT-4 O: PAT(service_accounts:write, agents:run) grants agents:run → 201 owned by sa:minter; the defaults → 403',
    async (t) => {
      const minter = await seedAccount(O.gateway, 'minter', [
        'service_accounts:write',
        'agents:run',
      ])
      const ok = await post(O, minter.token, { name: 'f116', scopes: grants('agents:run') })
      created(t, ok)
      t.match(ok.body, { user_id: 'sa:minter', created_by: 'sa:minter' })
      refused(
        t,
        await post(O, minter.token, { name: 'f116-b' }),
        403,
        cannotGrant('teams:run', 'workflows:run', 'sessions:read', 'config:read'),
      )
    },
  )

  void t.test(
    'SA-5 service accounts off (Portcullis: service_accounts.enabled false) → 503 with AgentOS’s text on every method (J and S; an open gateway without a store cannot be configured, see PAT-6)',
    async (t) => {
      const off = { service_accounts: { enabled: false } }
      const J0 = await stack(t, runtime, jConfig({}, off))
      const S0 = await stack(t, runtime, sConfig(off))
      t.equal(J0.gateway.gateway.serviceAccounts, undefined, 'no store at all')
      for (const [fixture, token] of [
        [J0, admin],
        [S0, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d'],
      ] as const) {
        refused(t, await post(fixture, token, { name: 'x' }), 503, NOT_AVAILABLE)
        refused(t, await fixture.call('GET', '/service-accounts', { token }), 503, NOT_AVAILABLE)
        const remove = await fixture.call('DELETE', '/service-accounts/some-id', { token })
        refused(t, remove, 503, NOT_AVAILABLE)
      }
    },
  )

  void t.test(
    'SA-5 DB without service-account support → 503',
    {
      skip: 'no Portcullis equivalent: AgentOS answers this for a db class lacking the methods; both Portcullis stores are the same SQL store, migrated at start, so every configured store supports service accounts',
    },
    () => undefined,
  )
})
