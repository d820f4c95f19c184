import t from 'tap'
import { testCatalogue } from '../../../helpers/catalogue.js'
import { ANONYMOUS } from '../../../../src/principal.js'
import {
  AMBIGUOUS_TARGET,
  McpToolPolicy,
  toolRoute,
} from '../../../../src/surfaces/mcp/tool-policy.js'
import type { UpstreamLookup } from '../../../../src/surfaces/common/upstream-lookup.js'
import { ADMIN, jwtPrincipal, SECURITY_KEY, servicePrincipal } from '../helpers.js'
import { Grants } from '../../../../src/policy/grants.js'

// Sessions the lookup knows: s1 of u1 holds run r1 of agent a1.
const lookup: UpstreamLookup = async (path) => {
  const url = new URL(path, 'http://upstream')
  const owner = url.searchParams.get('user_id')
  if (!url.pathname.startsWith('/sessions/s1') || owner !== 'u1') return { status: 404, value: {} }
  if (url.pathname.endsWith('/runs')) {
    return { status: 200, value: [{ run_id: 'r1', agent_id: 'a1' }] }
  }
  return { status: 200, value: { session_id: 's1', user_id: 'u1', agent_id: 'a1' } }
}
const defaultScopes = testCatalogue().defaultScopes
const policy = new McpToolPolicy({
  defaultScopes,
  grants: new Grants(ADMIN),
  userIsolation: false,
  lookup,
})
const isolated = new McpToolPolicy({
  defaultScopes,
  grants: new Grants(ADMIN),
  userIsolation: true,
  lookup,
})
const denied = (scopes: string) => ({
  kind: 'deny',
  message: `Insufficient permissions. Required scope(s): ${scopes}`,
})

void t.test('each built-in tool is checked as its REST route (MCP-6)', async (t) => {
  t.same(toolRoute('run_agent', { agent_id: 'a1' }), {
    method: 'POST',
    shape: '/agents/_/runs',
    context: { family: 'agents', id: 'a1' },
  })
  t.match(toolRoute('continue_run', { team_id: 't1', run_id: 'r' }), {
    shape: '/teams/_/runs/_/continue',
    context: { family: 'teams', id: 't1' },
  })
  t.equal(toolRoute('cancel_run', { run_id: 'r' }), 'ambiguous')
  t.equal(toolRoute('cancel_run', { agent_id: 'a', workflow_id: 'w' }), 'ambiguous')
  t.match(toolRoute('get_session_runs', { session_id: 's' }), { shape: '/sessions/_/runs' })
  t.match(toolRoute('run_agent', { agent_id: 'a/b' }), { context: { id: undefined } }, 'no `/` ids')
  t.equal(toolRoute('my_custom_tool', {}), undefined)
})

void t.test('denials name the templates; custom tools are not checked', async (t) => {
  const reader = jwtPrincipal(['config:read'])
  t.same(await policy.decide(reader, 'run_agent', { agent_id: 'a1' }), denied('agents:run'))
  t.same(await policy.decide(reader, 'get_sessions', {}), denied('sessions:read'))
  t.match(await policy.decide(reader, 'get_agentos_config', {}), { kind: 'allow' })
  t.match(await policy.decide(reader, 'my_custom_tool', {}), { kind: 'allow' })
  t.same(await policy.decide(reader, 'cancel_run', {}), { kind: 'deny', message: AMBIGUOUS_TARGET })
  t.same(
    await policy.decide(ANONYMOUS, 'continue_run', { agent_id: 'a', team_id: 't' }),
    { kind: 'deny', message: AMBIGUOUS_TARGET },
    'resolved before anything else, for every caller',
  )
  const one = jwtPrincipal(['agents:a1:run'])
  t.match(await policy.decide(one, 'run_agent', { agent_id: 'a1' }), { kind: 'allow' })
  t.same(await policy.decide(one, 'run_agent', { agent_id: 'a2' }), denied('agents:run'))
  t.same(await policy.decide(one, 'run_agent', {}), denied('agents:run'), 'no id: global needed')
})

void t.test('enforced for service accounts always, JWTs under authorization', async (t) => {
  const args = { team_id: 't1' }
  t.match(await policy.decide(jwtPrincipal([], 'u', false), 'run_team', args), { kind: 'allow' })
  t.match(await policy.decide(SECURITY_KEY, 'run_team', args), { kind: 'allow' })
  t.match(await policy.decide(ANONYMOUS, 'run_team', args), { kind: 'allow' })
  t.same(
    await policy.decide(servicePrincipal('r', ['sessions:read']), 'run_team', args),
    denied('teams:run'),
  )
  t.match(await policy.decide(jwtPrincipal([ADMIN]), 'run_team', args), { kind: 'allow' })
})

void t.test('user_id: run tools the caller, read tools scoped callers (ISO-2)', async (t) => {
  const user = jwtPrincipal(['agents:run', 'sessions:read'], 'u1')
  t.same(await policy.decide(user, 'run_agent', { agent_id: 'a1', user_id: 'x' }), {
    kind: 'allow',
    args: { agent_id: 'a1', user_id: 'u1' },
    changed: true,
  })
  t.same(await policy.decide(user, 'get_sessions', { user_id: 'x' }), {
    kind: 'allow',
    args: { user_id: 'x' },
    changed: false,
  })
  t.same(await isolated.decide(user, 'get_sessions', { user_id: 'x' }), {
    kind: 'allow',
    args: { user_id: 'u1' },
    changed: true,
  })
  const bot = servicePrincipal('bot', ['sessions:read'])
  t.match(await policy.decide(bot, 'get_session_runs', { session_id: 's' }), {
    args: { session_id: 's', user_id: 'sa:bot' },
  })
  const admin = jwtPrincipal([ADMIN], 'root')
  t.match(await isolated.decide(admin, 'get_sessions', { user_id: 'x' }), {
    args: { user_id: 'x' },
  })
  t.match(await isolated.decide(admin, 'run_agent', { agent_id: 'a1' }), {
    args: { user_id: 'root' },
  })
  t.match(await policy.decide(SECURITY_KEY, 'run_agent', { user_id: 'x' }), { changed: false })
})

void t.test('MCP-4: a scoped caller acts only on runs of its own sessions', async (t) => {
  const u1 = jwtPrincipal(['agents:run', 'teams:run'], 'u1')
  const u2 = jwtPrincipal(['agents:run'], 'u2')
  const mine = { agent_id: 'a1', run_id: 'r1', session_id: 's1' }
  t.match(await isolated.decide(u1, 'cancel_run', mine), { kind: 'allow' })
  t.same(await isolated.decide(u2, 'cancel_run', mine), { kind: 'deny', message: 'Run not found' })
  t.same(
    await isolated.decide(u1, 'cancel_run', { ...mine, run_id: 'r2' }),
    { kind: 'deny', message: 'Run not found' },
    'a run the session does not hold',
  )
  t.same(
    await isolated.decide(u1, 'cancel_run', { ...mine, agent_id: undefined, team_id: 'a1' }),
    { kind: 'deny', message: 'Run not found' },
    'the session of another component',
  )
  t.same(await isolated.decide(u1, 'continue_run', { agent_id: 'a1', run_id: 'r1' }), {
    kind: 'deny',
    message: 'session_id is required to act on this run',
  })
  t.match(await policy.decide(u2, 'cancel_run', mine), { kind: 'allow' }, 'isolation off')
  const bot = servicePrincipal('bot', ['agents:run'])
  t.same(
    await policy.decide(bot, 'cancel_run', mine),
    { kind: 'deny', message: 'Run not found' },
    'service accounts are always scoped',
  )
  const admin = jwtPrincipal([ADMIN], 'root')
  t.match(await isolated.decide(admin, 'cancel_run', { agent_id: 'a1', run_id: 'x' }), {
    kind: 'allow',
  })
})
