import t from 'tap'
import { ServicePrincipals } from '../../../src/service-accounts/service-account-principal.js'
import type { ServiceAccountRecord } from '../../../src/service-accounts/store.js'

const principals = new ServicePrincipals()
const servicePrincipal = (record: ServiceAccountRecord, hash: string) => principals.of(record, hash)

const record = (id: string, scopes: string[]): ServiceAccountRecord => ({
  id,
  name: `bot-${id}`,
  userId: null,
  tokenHash: 'ab'.repeat(32),
  tokenPrefix: 'svc_pat_abcd',
  scopes,
  createdAt: 1,
  expiresAt: null,
  createdBy: null,
  lastUsedAt: null,
  lastUsedFrom: null,
  revokedAt: null,
})

void t.test(
  'accounts with the same scopes share one frozen list (memory of the cache)',
  async (t) => {
    const a = servicePrincipal(record('1', ['agents:run', 'teams:run']), 'h1')
    const b = servicePrincipal(record('2', ['agents:run', 'teams:run']), 'h2')
    const c = servicePrincipal(record('3', ['teams:run', 'agents:run']), 'h3')
    t.equal(a.scopes, b.scopes)
    t.not(a.scopes, c.scopes, 'order is part of the list')
    t.ok(Object.isFrozen(a.scopes))
    t.same(c.scopes, ['teams:run', 'agents:run'])
  },
)

void t.test('scope lists that would join to the same text stay distinct', async (t) => {
  const a = servicePrincipal(record('1', ['a', 'b']), 'h1')
  const b = servicePrincipal(record('2', ['a\u0000b']), 'h2')
  t.same(a.scopes, ['a', 'b'])
  t.same(b.scopes, ['a\u0000b'])
})

void t.test(
  'the record the list came from can change without touching the principal',
  async (t) => {
    const scopes = ['sessions:read']
    const principal = servicePrincipal(record('1', scopes), 'h1')
    scopes.push('agents:run')
    t.same(principal.scopes, ['sessions:read'])
    t.equal(principal.userId, 'sa:bot-1')
  },
)

void t.test('each instance keeps its own table of shared lists', async (t) => {
  const other = new ServicePrincipals()
  const here = servicePrincipal(record('1', ['agents:run']), 'h1')
  const there = other.of(record('2', ['agents:run']), 'h2')
  t.same(here.scopes, there.scopes)
  t.not(here.scopes, there.scopes, 'not shared between gateways in one process')
  t.equal(other.of(record('3', ['agents:run']), 'h3').scopes, there.scopes)
})
