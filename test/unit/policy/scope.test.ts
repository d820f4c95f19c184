import t from 'tap'
import {
  DEFAULT_TOKEN_SCOPES,
  invalidScopes,
  parseScope,
  privilegedScopes,
  splitScope,
  ungrantableScopes,
} from '../../../src/policy/scope.js'
import { ADMIN, SCHEDULER_SCOPES } from './helpers.js'

void t.test('parseScope follows SCOPE-1', async (t) => {
  t.same(parseScope('os:admin', ADMIN), { kind: 'admin' })
  t.same(parseScope('agents:read', ADMIN), { kind: 'global', resource: 'agents', action: 'read' })
  t.same(parseScope('agents:a1:run', ADMIN), {
    kind: 'resource',
    resource: 'agents',
    id: 'a1',
    action: 'run',
    wildcard: false,
  })
  t.same(parseScope('agents:*:run', ADMIN), {
    kind: 'resource',
    resource: 'agents',
    id: '*',
    action: 'run',
    wildcard: true,
  })
  t.same(parseScope('system:read', ADMIN), { kind: 'global', resource: 'config', action: 'read' })
  t.same(parseScope('system:x:write', ADMIN), {
    kind: 'resource',
    resource: 'config',
    id: 'x',
    action: 'write',
    wildcard: false,
  })
  t.same(parseScope('agent_os:admin', ADMIN), {
    kind: 'global',
    resource: 'agent_os',
    action: 'admin',
  })
  t.same(parseScope('agent_os:admin', 'agent_os:admin'), { kind: 'admin' })
  t.same(parseScope('agents:', ADMIN), { kind: 'global', resource: 'agents', action: '' })
  t.same(parseScope(':', ADMIN), { kind: 'global', resource: '', action: '' })
  t.same(parseScope('*:*', ADMIN), { kind: 'global', resource: '*', action: '*' })
  for (const unknown of ['', '*', 'bogus', 'a:b:c:d']) {
    t.same(parseScope(unknown, ADMIN), { kind: 'unknown' }, JSON.stringify(unknown))
  }
})

void t.test('splitScope is the wire split, with the alias and no admin special case', async (t) => {
  t.same(splitScope('agents:read'), {
    namespace: 'agents',
    sub_namespace: null,
    permission: 'read',
  })
  t.same(splitScope('agents:*:run'), { namespace: 'agents', sub_namespace: '*', permission: 'run' })
  t.same(splitScope('agents:my-agent:run'), {
    namespace: 'agents',
    sub_namespace: 'my-agent',
    permission: 'run',
  })
  t.same(splitScope('system:read'), {
    namespace: 'config',
    sub_namespace: null,
    permission: 'read',
  })
  t.same(splitScope('agent_os:admin'), {
    namespace: 'agent_os',
    sub_namespace: null,
    permission: 'admin',
  })
  t.same(splitScope('os:admin'), { namespace: 'os', sub_namespace: null, permission: 'admin' })
  t.same(splitScope('a:b:c:d'), { namespace: 'a', sub_namespace: 'b:c', permission: 'd' })
  t.same(splitScope('bogus'), { namespace: 'bogus', sub_namespace: null, permission: 'unknown' })
  t.same(splitScope(''), { namespace: '', sub_namespace: null, permission: 'unknown' })
})

void t.test('DEFAULT_TOKEN_SCOPES (MINT-3), in order', async (t) => {
  t.same(DEFAULT_TOKEN_SCOPES, [
    'agents:run',
    'teams:run',
    'workflows:run',
    'sessions:read',
    'config:read',
  ])
  t.ok(Object.isFrozen(DEFAULT_TOKEN_SCOPES))
})

void t.test('SCOPE-1 invalid scopes, in request order', async (t) => {
  t.same(invalidScopes(['bogus'], ADMIN), ['bogus'])
  t.same(invalidScopes(['bogus', 'agents:run', 'a:b:c:d'], ADMIN), ['bogus', 'a:b:c:d'])
  t.same(invalidScopes(['os:admin', 'agents:', ':', '*:*'], ADMIN), [])
})

void t.test('SCOPE-1 an empty scope is invalid and renders as nothing', async (t) => {
  const invalid = invalidScopes([''], ADMIN)
  t.same(invalid, [''])
  t.equal(`Invalid scope(s): ${invalid.join(', ')}`, 'Invalid scope(s): ')
})

void t.test('MINT-2 sessions:write is privileged', async (t) => {
  t.same(privilegedScopes(['sessions:write'], ADMIN), ['sessions:write'])
})

void t.test('MINT-2 admin, service_accounts and delete are privileged; run is not', async (t) => {
  t.same(privilegedScopes(['agent_os:admin'], ADMIN), ['agent_os:admin'])
  t.same(privilegedScopes(['agent_os:admin'], 'agent_os:admin'), ['agent_os:admin'])
  t.same(privilegedScopes(['os:admin'], ADMIN), ['os:admin'])
  t.same(privilegedScopes(['service_accounts:write'], ADMIN), ['service_accounts:write'])
  t.same(privilegedScopes(['service_accounts:read'], ADMIN), ['service_accounts:read'])
  t.same(privilegedScopes(['service_accounts:x:run'], ADMIN), ['service_accounts:x:run'])
  t.same(privilegedScopes(['sessions:*:delete'], ADMIN), ['sessions:*:delete'])
  t.same(privilegedScopes(['system:write'], ADMIN), ['system:write'])
  t.same(privilegedScopes(['agents:my-agent:run', 'agents:read', 'bogus'], ADMIN), [])
})

void t.test('MINT-2 mixed privileged scopes are listed in request order', async (t) => {
  t.same(privilegedScopes(['sessions:write', 'agents:run', 'service_accounts:read'], ADMIN), [
    'sessions:write',
    'service_accounts:read',
  ])
})

const minter = ['service_accounts:write', 'agents:run']

void t.test('MINT-4 the subset rule for a delegated minter', async (t) => {
  t.same(ungrantableScopes(minter, ['agents:run'], ADMIN), [])
  t.same(ungrantableScopes(minter, ['teams:run'], ADMIN), ['teams:run'])
  t.same(ungrantableScopes(minter, ['os:admin'], ADMIN), ['os:admin'])
})

void t.test('MINT-4 minting the defaults lists every missing one, in order', async (t) => {
  t.same(ungrantableScopes(minter, DEFAULT_TOKEN_SCOPES, ADMIN), [
    'teams:run',
    'workflows:run',
    'sessions:read',
    'config:read',
  ])
})

void t.test('MINT-4 a wildcard or global holder may grant per-resource and wildcard', async (t) => {
  t.same(ungrantableScopes(['agents:*:run'], ['agents:z:run', 'agents:run'], ADMIN), [])
  t.same(ungrantableScopes(['agents:run'], ['agents:*:run', 'agents:z:run'], ADMIN), [])
})

void t.test('MINT-4 a per-resource holder may grant only that scope', async (t) => {
  const caller = ['agents:my-agent:run']
  t.same(ungrantableScopes(caller, ['agents:my-agent:run'], ADMIN), [])
  t.same(
    ungrantableScopes(
      caller,
      ['agents:other-agent:run', 'agents:*:run', 'agents:run', 'agents:my-agent:read'],
      ADMIN,
    ),
    ['agents:other-agent:run', 'agents:*:run', 'agents:run', 'agents:my-agent:read'],
  )
})

void t.test('MINT-4 self-replication of service_accounts:write is allowed', async (t) => {
  t.same(ungrantableScopes(['service_accounts:write'], ['service_accounts:write'], ADMIN), [])
})

void t.test('MINT-1 check order: invalid, then privileged, then subset', async (t) => {
  const requested = ['bogus', 'sessions:write']
  t.same(invalidScopes(requested, ADMIN), ['bogus'], 'the first check already refuses')
  t.same(invalidScopes(['sessions:write'], ADMIN), [])
  t.same(privilegedScopes(['sessions:write'], ADMIN), ['sessions:write'])
  t.same(ungrantableScopes(['agents:run'], ['teams:run'], ADMIN), ['teams:run'])
})

void t.test('subset rule: admin callers, aliases and ordinary agent_os:admin', async (t) => {
  t.same(ungrantableScopes(['os:admin'], ['os:admin', 'bogus', 'x:y:z'], ADMIN), [])
  t.same(ungrantableScopes(['system:read'], ['config:read', 'system:read'], ADMIN), [])
  t.same(ungrantableScopes(['agent_os:admin'], ['agent_os:admin', 'os:admin'], ADMIN), ['os:admin'])
  t.same(ungrantableScopes(['agents:a1:run'], ['agents:a1:run', 'agents:a1:run'], ADMIN), [])
  t.same(ungrantableScopes([], [], ADMIN), [])
})

void t.test('AUTH-7 the scheduler cannot mint the defaults', async (t) => {
  t.same(ungrantableScopes(SCHEDULER_SCOPES, DEFAULT_TOKEN_SCOPES, ADMIN), [
    'sessions:read',
    'config:read',
  ])
  t.same(ungrantableScopes(SCHEDULER_SCOPES, ['agents:run'], ADMIN), [])
})
