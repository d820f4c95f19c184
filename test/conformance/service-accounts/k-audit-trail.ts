/**
 * The audit trail through the gateway, on both stores: what a mint and a revoke made by a client
 * leave in the store's event chain.
 */
import t from 'tap'
import { eventHash } from '../../../src/service-accounts/audit-chain.js'
import { startRuntime } from '../../helpers/runtime.js'
import { allEvents, assertChain } from '../../contract/service-account-store.js'
import { ADMIN, jConfig, jwt, stack } from '../fixtures.js'
import { grants, mint, onStore, subsystem } from './harness.js'

const runtime = await startRuntime(t)

onStore(t, async (t, store) => {
  const J = await stack(t, runtime, jConfig({}, await store.section()))
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const events = () => allEvents(subsystem(J.gateway).store)

  void t.test('a mint and a revoke are recorded once each, with actor and request', async (t) => {
    const before = Date.now()
    const mintReply = await J.call('POST', '/service-accounts', {
      token: admin,
      json: { name: 'k-audited', scopes: grants(ADMIN), allow_privileged_scopes: true },
    })
    t.equal(mintReply.status, 201)
    const minted = mintReply.body as { id: string; token: string; expires_at: number }
    const revokes = [
      await J.call('DELETE', `/service-accounts/${minted.id}`, { token: admin }),
      await J.call('DELETE', `/service-accounts/${minted.id}`, { token: admin }),
    ]
    t.same(
      revokes.map((reply) => reply.status),
      [204, 204],
    )
    const recorded = (await events()).filter((event) => event.accountId === minted.id)
    t.match(recorded, [
      {
        type: 'mint',
        accountName: 'k-audited',
        actorKind: 'jwt',
        actor: 'human-admin',
        clientAddress: '127.0.0.1',
        requestId: mintReply.headers['x-request-id'],
        details: {
          scopes: [ADMIN],
          owner: 'human-admin',
          expires_at: minted.expires_at,
          privileged: true,
        },
      },
      {
        type: 'revoke',
        accountName: 'k-audited',
        actor: 'human-admin',
        requestId: revokes[0]?.headers['x-request-id'],
      },
    ])
    t.equal(recorded.length, 2, 'the repeated revoke is not recorded again')
    for (const event of recorded) {
      t.ok(event.occurredAt >= before && event.occurredAt <= Date.now(), 'milliseconds, now')
      t.equal(event.hash, eventHash(event))
    }
    const stored = JSON.stringify(recorded)
    t.notOk(stored.includes(minted.token.slice(8)), 'never the token')
  })

  void t.test('an ordinary mint is recorded unprivileged; the chain stays whole', async (t) => {
    const other = await jwt(['service_accounts:write', 'agents:run'], { sub: 'bob' })
    const account = await mint(J, other, { name: 'k-plain', scopes: grants('agents:run') })
    const refused = await J.call('POST', '/service-accounts', {
      token: other,
      json: { name: 'k-plain', scopes: grants('agents:run') },
    })
    t.equal(refused.status, 409, 'a conflicting mint')
    const all = await events()
    t.match(
      all.filter((event) => event.accountName === 'k-plain'),
      [{ type: 'mint', accountId: account.id, actor: 'bob', details: { privileged: false } }],
      'the refused mint left no event',
    )
    assertChain(t, all)
  })
})
