import t from 'tap'
import { ANONYMOUS } from '../../../src/auth/principal.js'
import {
  AMBIGUOUS_TARGET,
  McpToolPolicy,
  PERMISSION_DENIED_CODE,
  toolRoute,
} from '../../../src/surfaces/mcp-tools.js'
import { ADMIN, jwtPrincipal, SECURITY_KEY, servicePrincipal } from './helpers.js'

const policy = new McpToolPolicy({ adminScope: ADMIN, userIsolation: false })
const isolated = new McpToolPolicy({ adminScope: ADMIN, userIsolation: true })
const denied = (scopes: string) => ({
  kind: 'deny',
  code: PERMISSION_DENIED_CODE,
  message: `Insufficient permissions. Required scope(s): ${scopes}`,
})

void t.test('each built-in tool is checked as its REST route (reference 8.1)', async (t) => {
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
  t.same(policy.decide(reader, 'run_agent', { agent_id: 'a1' }), denied('agents:run'))
  t.same(policy.decide(reader, 'get_sessions', {}), denied('sessions:read'))
  t.match(policy.decide(reader, 'get_agentos_config', {}), { kind: 'allow' })
  t.match(policy.decide(reader, 'my_custom_tool', {}), { kind: 'allow' })
  t.same(policy.decide(reader, 'cancel_run', {}), {
    kind: 'deny',
    code: -32602,
    message: AMBIGUOUS_TARGET,
  })
  const one = jwtPrincipal(['agents:a1:run'])
  t.match(policy.decide(one, 'run_agent', { agent_id: 'a1' }), { kind: 'allow' })
  t.same(policy.decide(one, 'run_agent', { agent_id: 'a2' }), denied('agents:run'))
  t.same(policy.decide(one, 'run_agent', {}), denied('agents:run'), 'no id: global needed')
})

void t.test('enforced for service accounts always, JWTs under authorization', async (t) => {
  const args = { team_id: 't1' }
  t.match(policy.decide(jwtPrincipal([], 'u', false), 'run_team', args), { kind: 'allow' })
  t.match(policy.decide(SECURITY_KEY, 'run_team', args), { kind: 'allow' })
  t.match(policy.decide(ANONYMOUS, 'run_team', args), { kind: 'allow' })
  t.same(
    policy.decide(servicePrincipal('r', ['sessions:read']), 'run_team', args),
    denied('teams:run'),
  )
  t.match(policy.decide(jwtPrincipal([ADMIN]), 'run_team', args), { kind: 'allow' })
})

void t.test('user_id: run tools the caller, read tools scoped callers (7.2)', async (t) => {
  const user = jwtPrincipal(['agents:run', 'sessions:read'], 'u1')
  t.same(policy.decide(user, 'run_agent', { agent_id: 'a1', user_id: 'x' }), {
    kind: 'allow',
    args: { agent_id: 'a1', user_id: 'u1' },
    changed: true,
  })
  t.same(policy.decide(user, 'get_sessions', { user_id: 'x' }), {
    kind: 'allow',
    args: { user_id: 'x' },
    changed: false,
  })
  t.same(isolated.decide(user, 'get_sessions', { user_id: 'x' }), {
    kind: 'allow',
    args: { user_id: 'u1' },
    changed: true,
  })
  const bot = servicePrincipal('bot', ['sessions:read'])
  t.match(policy.decide(bot, 'get_session_runs', { session_id: 's' }), {
    args: { session_id: 's', user_id: 'sa:bot' },
  })
  const admin = jwtPrincipal([ADMIN], 'root')
  t.match(isolated.decide(admin, 'get_sessions', { user_id: 'x' }), { args: { user_id: 'x' } })
  t.match(isolated.decide(admin, 'run_agent', { agent_id: 'a1' }), { args: { user_id: 'root' } })
  t.match(policy.decide(SECURITY_KEY, 'run_agent', { user_id: 'x' }), { changed: false })
})
