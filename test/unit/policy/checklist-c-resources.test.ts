import t, { type Test } from 'tap'
import { allowed, decide, denied, deniedWith, jwt } from './helpers.js'

// Checklist part C, lines 44–64: RBAC on JWTs with authorization on (fixture J).

void t.test('RBAC-2 GET /agents with agents:read → all', async (t) => {
  t.same(decide(jwt('agents:read'), 'GET', '/agents'), allowed('all'))
})

void t.test('RBAC-2 GET /agents with sessions:read → 403ip(agents:read)', async (t) => {
  t.same(decide(jwt('sessions:read'), 'GET', '/agents'), denied('agents:read'))
})

void t.test('RBAC-2 GET /agents with teams:read → 403ip(agents:read)', async (t) => {
  t.same(decide(jwt('teams:read'), 'GET', '/agents'), denied('agents:read'))
})

void t.test('RBAC-1 admin lists all agents and runs a1', async (t) => {
  t.same(decide(jwt('os:admin'), 'GET', '/agents'), allowed('all'))
  t.same(decide(jwt('os:admin'), 'POST', '/agents/a1/runs'), allowed())
})

void t.test('RBAC-2 GET /agents with agents:*:read → all', async (t) => {
  t.same(decide(jwt('agents:*:read'), 'GET', '/agents'), allowed('all'))
})

void t.test('RBAC-2 GET /agents with agents:a1:read → [a1]', async (t) => {
  t.same(decide(jwt('agents:a1:read'), 'GET', '/agents'), allowed(['a1']))
})

void t.test('RBAC-2 GET /agents with agents:a1:read, agents:a2:read → [a1, a2]', async (t) => {
  t.same(decide(jwt('agents:a1:read', 'agents:a2:read'), 'GET', '/agents'), allowed(['a1', 'a2']))
})

void t.test('RBAC-2 GET /agents with agents:run, agents:a1:run or agents:* → 403', async (t) => {
  for (const scope of ['agents:run', 'agents:a1:run', 'agents:*']) {
    t.same(decide(jwt(scope), 'GET', '/agents'), denied('agents:read'), scope)
  }
})

void t.test('JWT-10 no scopes → 403; "agents:read teams:read" as one scope → 200 []', async (t) => {
  t.same(decide(jwt(), 'GET', '/agents'), denied('agents:read'))
  t.same(decide(jwt('agents:read'), 'GET', '/agents'), allowed('all'))
  // Parses as agents / id "read teams" / read: let through, and no real agent has that id.
  t.same(decide(jwt('agents:read teams:read'), 'GET', '/agents'), allowed(['read teams']))
})

void t.test('RBAC-2 agents:read cannot list teams or workflows', async (t) => {
  t.same(decide(jwt('agents:read'), 'GET', '/teams'), denied('teams:read'))
  t.same(decide(jwt('agents:read'), 'GET', '/workflows'), denied('workflows:read'))
})

void t.test('RBAC-2 mixed scopes: [a1], all teams, all workflows', async (t) => {
  const who = jwt('agents:a1:read', 'teams:read', 'workflows:*:read')
  t.same(decide(who, 'GET', '/agents'), allowed(['a1']))
  t.same(decide(who, 'GET', '/teams'), allowed('all'))
  t.same(decide(who, 'GET', '/workflows'), allowed('all'))
})

void t.test('SCOPE-3 GET /agents/a1: a1 → 200; a2 → 403ip(agents:read); none → 403', async (t) => {
  t.same(decide(jwt('agents:a1:read'), 'GET', '/agents/a1'), allowed())
  t.same(decide(jwt('agents:a2:read'), 'GET', '/agents/a1'), denied('agents:read'))
  t.same(decide(jwt(), 'GET', '/agents/a1'), denied('agents:read'))
})

void t.test('SCOPE-3 GET /agents/a1 with agents:read or agents:*:read → 200', async (t) => {
  t.same(decide(jwt('agents:read'), 'GET', '/agents/a1'), allowed())
  t.same(decide(jwt('agents:*:read'), 'GET', '/agents/a1'), allowed())
})

function runChecks(family: string, id: string, other: string) {
  return async (t: Test) => {
    const path = `/${family}/${id}/runs`
    t.same(decide(jwt(`${family}:${id}:run`), 'POST', path), allowed())
    t.same(decide(jwt(`${family}:${id}:read`), 'POST', path), denied(`${family}:run`))
    t.same(decide(jwt(`${family}:${other}:run`), 'POST', path), denied(`${family}:run`))
    t.same(decide(jwt(`${family}:run`), 'POST', path), allowed())
    t.same(decide(jwt(`${family}:*:run`), 'POST', path), allowed())
    t.same(decide(jwt(`${family}:${id}:read`), 'GET', `/${family}/${id}`), allowed())
    t.same(
      decide(jwt(`${family}:${other}:read`), 'GET', `/${family}/${id}`),
      denied(`${family}:read`),
    )
  }
}

void t.test('SCOPE-3 POST /agents/a1/runs by scope', runChecks('agents', 'a1', 'a2'))
void t.test('SCOPE-3 teams mirror 55–57', runChecks('teams', 't1', 't2'))
void t.test('SCOPE-3 workflows mirror 55–57', runChecks('workflows', 'w1', 'w2'))

void t.test('SCOPE-3 cancel needs run on that agent', async (t) => {
  t.same(decide(jwt('agents:a1:run'), 'POST', '/agents/a1/runs/r/cancel'), allowed())
  t.same(decide(jwt('agents:a1:run'), 'POST', '/agents/a2/runs/r/cancel'), denied('agents:run'))
  t.same(decide(jwt('agents:a1:read'), 'POST', '/agents/a1/runs/r/cancel'), denied('agents:run'))
})

void t.test('SCOPE-3 admin cancels on agents, teams and workflows', async (t) => {
  for (const path of ['/agents/a1', '/teams/t1', '/workflows/w1']) {
    t.same(decide(jwt('os:admin'), 'POST', `${path}/runs/x/cancel`), allowed(), path)
  }
})

void t.test('SCOPE-3 continue needs run on that agent', async (t) => {
  t.same(decide(jwt('agents:a1:run'), 'POST', '/agents/a1/runs/r/continue'), allowed())
  t.same(decide(jwt('agents:a1:run'), 'POST', '/agents/a2/runs/r/continue'), denied('agents:run'))
})

void t.test('RBAC-3 GET /agents/a1/runs needs read (mapping) and run (route gate)', async (t) => {
  t.same(
    decide(jwt('agents:a1:read'), 'GET', '/agents/a1/runs'),
    deniedWith('Access denied to run this agent'),
  )
  t.same(decide(jwt('agents:a1:run'), 'GET', '/agents/a1/runs'), denied('agents:read'))
  t.same(decide(jwt('agents:a1:read', 'agents:a1:run'), 'GET', '/agents/a1/runs'), allowed())
})

void t.test('RBAC-3 resume without scopes → Access denied to run this agent', async (t) => {
  t.same(
    decide(jwt(), 'POST', '/agents/a1/runs/r/resume'),
    deniedWith('Access denied to run this agent'),
  )
})

void t.test('RBAC-3 fork without scopes → Access denied to run this agent', async (t) => {
  t.same(
    decide(jwt(), 'POST', '/agents/a1/sessions/s1/fork'),
    deniedWith('Access denied to run this agent'),
  )
})
