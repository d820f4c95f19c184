import t from 'tap'
import { Grants } from '../../../../src/policy/grants.js'
import { ANONYMOUS } from '../../../../src/principal.js'
import {
  gateWorkflowAction,
  isRelayedAction,
  WORKFLOW_ID_REQUIRED,
  type GateSettings,
} from '../../../../src/surfaces/workflow/gates.js'
import { ADMIN, jwtPrincipal, SECURITY_KEY, servicePrincipal } from '../helpers.js'

const JWT_MODE: GateSettings = {
  jwtConfigured: true,
  grants: new Grants(ADMIN),
  userIsolation: false,
}
const KEY_MODE: GateSettings = {
  jwtConfigured: false,
  grants: new Grants(ADMIN),
  userIsolation: false,
}
const ISOLATED: GateSettings = { ...JWT_MODE, userIsolation: true }

void t.test('only the three workflow actions are relayed', async (t) => {
  t.ok(isRelayedAction('start-workflow'))
  t.ok(isRelayedAction('continue-workflow'))
  t.ok(isRelayedAction('reconnect'))
  t.notOk(isRelayedAction('ping'))
  t.notOk(isRelayedAction('authenticate'))
})

void t.test('workflows:run per resource, with the action in the denial', async (t) => {
  const specific = jwtPrincipal(['workflows:w1:run'])
  const message = { action: 'start-workflow', workflow_id: 'w1' }
  t.match(gateWorkflowAction('start-workflow', message, specific, JWT_MODE), { kind: 'relay' })
  const other = { workflow_id: 'w2' }
  t.same(gateWorkflowAction('start-workflow', other, specific, JWT_MODE), {
    kind: 'refuse',
    frame: { event: 'error', error: 'Insufficient permissions to run this workflow' },
  })
  t.match(gateWorkflowAction('continue-workflow', other, specific, JWT_MODE), {
    frame: { error: 'Insufficient permissions to continue this workflow' },
  })
  t.match(gateWorkflowAction('reconnect', other, specific, JWT_MODE), {
    frame: { error: 'Insufficient permissions to reconnect to this workflow' },
  })
  t.match(
    gateWorkflowAction('start-workflow', {}, specific, JWT_MODE),
    { kind: 'refuse' },
    'no workflow_id: a global grant is needed',
  )
  t.match(gateWorkflowAction('start-workflow', {}, jwtPrincipal(['workflows:*:run']), JWT_MODE), {
    kind: 'relay',
  })
})

void t.test('who is checked: JWT deployments and service accounts', async (t) => {
  const none = jwtPrincipal([], 'u1', false)
  t.match(
    gateWorkflowAction('start-workflow', {}, none, JWT_MODE),
    { kind: 'refuse' },
    'JWT, RBAC off',
  )
  t.match(gateWorkflowAction('start-workflow', {}, SECURITY_KEY, KEY_MODE), { kind: 'relay' })
  t.match(gateWorkflowAction('start-workflow', {}, ANONYMOUS, KEY_MODE), { kind: 'relay' })
  const reader = servicePrincipal('r', ['sessions:read'])
  t.match(gateWorkflowAction('start-workflow', {}, reader, KEY_MODE), { kind: 'refuse' })
})

void t.test('user_id: overwritten for non-admins, a default for admins', async (t) => {
  const runner = servicePrincipal('bot', ['workflows:run'])
  t.same(gateWorkflowAction('start-workflow', { user_id: 'mallory' }, runner, KEY_MODE), {
    kind: 'relay',
    message: { user_id: 'sa:bot' },
    changed: true,
  })
  const admin = jwtPrincipal([ADMIN], 'root')
  t.same(gateWorkflowAction('reconnect', { user_id: 'bob' }, admin, JWT_MODE), {
    kind: 'relay',
    message: { user_id: 'bob' },
    changed: false,
  })
  t.same(gateWorkflowAction('reconnect', {}, admin, JWT_MODE), {
    kind: 'relay',
    message: { user_id: 'root' },
    changed: true,
  })
  t.same(
    gateWorkflowAction('start-workflow', { user_id: 'x' }, SECURITY_KEY, KEY_MODE),
    { kind: 'relay', message: { user_id: 'x' }, changed: false },
    'no identity, no isolation: as sent',
  )
  t.same(
    gateWorkflowAction('start-workflow', { user_id: 'x' }, SECURITY_KEY, {
      ...KEY_MODE,
      userIsolation: true,
    }),
    { kind: 'relay', message: { user_id: null }, changed: true },
    'under isolation a client value is never an identity',
  )
})

void t.test('reconnect under isolation needs a workflow_id, admins excepted', async (t) => {
  const user = jwtPrincipal(['workflows:run'])
  t.same(gateWorkflowAction('reconnect', { run_id: 'r' }, user, ISOLATED), {
    kind: 'refuse',
    frame: { event: 'error', error: WORKFLOW_ID_REQUIRED },
  })
  t.match(gateWorkflowAction('reconnect', { run_id: 'r' }, user, JWT_MODE), { kind: 'relay' })
  t.match(gateWorkflowAction('reconnect', {}, jwtPrincipal([ADMIN], 'root'), ISOLATED), {
    kind: 'relay',
  })
})

void t.test(
  'WS-4: the configured admin scope makes an admin, the literal default does not',
  async (t) => {
    const custom: GateSettings = { ...ISOLATED, grants: new Grants('platform:admin') }
    const configured = jwtPrincipal(['platform:admin'], 'root')
    t.match(
      gateWorkflowAction('reconnect', { run_id: 'r' }, configured, custom),
      { kind: 'relay' },
      'the configured scope skips the reconnect checks',
    )
    t.same(
      gateWorkflowAction('start-workflow', { workflow_id: 'w1' }, configured, custom),
      { kind: 'relay', message: { workflow_id: 'w1', user_id: 'root' }, changed: true },
      'and user_id is only a default',
    )
    const literal = jwtPrincipal([ADMIN], 'root')
    t.same(gateWorkflowAction('reconnect', { run_id: 'r' }, literal, custom), {
      kind: 'refuse',
      frame: { event: 'error', error: WORKFLOW_ID_REQUIRED },
    })
    t.same(gateWorkflowAction('reconnect', { workflow_id: 'w1' }, literal, custom), {
      kind: 'refuse',
      frame: { event: 'error', error: 'Insufficient permissions to reconnect to this workflow' },
    })
  },
)
