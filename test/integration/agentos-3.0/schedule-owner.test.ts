/**
 * V3-ISO-3: AgentOS 3.0's scheduler executor names a schedule's owner in `X-Schedule-Owner`
 * (percent-encoded); only the internal token's copy means anything, and under user isolation the
 * scheduler then acts as that owner. An open AgentOS honours none, so the gateway removes every
 * copy before the upstream sees it and applies the rule to the scheduler token it verifies.
 * Through real gateways pinned to 3.0 against the demo runtime as an open 3.0.0a3.
 */
import t, { type Test } from 'tap'
import {
  forwarded,
  jConfig,
  jwt,
  refused,
  sConfig,
  SCHEDULER_TOKEN,
  SECURITY_KEY,
  stack30,
  startRuntime30,
  type Reply,
} from './line-3.0.js'

const runtime = await startRuntime30(t)
const JI = await stack30(
  t,
  runtime,
  jConfig({ user_isolation: true, internal_service_token: SCHEDULER_TOKEN }),
)
const J = await stack30(t, runtime, jConfig({ internal_service_token: SCHEDULER_TOKEN }))
const S = await stack30(t, runtime, sConfig())
const alice = await jwt(['agents:read', 'agents:run', 'sessions:read'], { sub: 'alice' })

/** `élise m`, as the executor's `quote(owner, safe="")` writes it. */
const ENCODED_OWNER = '%C3%A9lise%20m'
const OWNER = 'élise m'

/** Header names the upstream received that are a spelling of X-Schedule-Owner. */
function ownerHeadersSeen(reply: Reply): string[] {
  const raw = reply.upstream?.rawHeaders ?? []
  return raw
    .filter((_, index) => index % 2 === 0)
    .filter((name) => name.toLowerCase().replaceAll('_', '-') === 'x-schedule-owner')
}

function noOwnerHeader(t: Test, reply: Reply): void {
  t.not(reply.upstream, undefined, 'forwarded')
  t.same(ownerHeadersSeen(reply), [], 'no X-Schedule-Owner reached the upstream')
}

const run = (user: string) => ({ message: 'scheduled', stream: 'false', user_id: user })

void t.test(
  'V3-ISO-3 a client’s X-Schedule-Owner (any spelling) never reaches the upstream, and scopes nobody',
  async (t) => {
    for (const name of ['X-Schedule-Owner', 'x_schedule_owner']) {
      const headers = { [name]: 'bob' }
      const runReply = await JI.call('POST', '/agents/a1/runs', {
        token: alice,
        headers,
        form: run('bob'),
      })
      forwarded(t, runReply, 200, '/agents/a1/runs')
      noOwnerHeader(t, runReply)
      t.same(runReply.upstream?.form?.user_id, ['alice'], 'alice’s own run')
      const read = await JI.call('GET', '/sessions?type=agent', { token: alice, headers })
      noOwnerHeader(t, read)
      t.same(read.upstream?.query.user_id, ['alice'], 'scoped to alice')
      noOwnerHeader(t, await JI.call('GET', '/health', { headers }))
      const key = await S.call('GET', '/agents/a1', { token: SECURITY_KEY, headers })
      noOwnerHeader(t, key)
      t.equal(key.upstream?.query.user_id, undefined, 'the security key stays unscoped')
    }
  },
)

void t.test(
  'V3-ISO-3 under isolation the scheduler acts as the owner it names, percent-decoded: reads scoped, runs owned by it',
  async (t) => {
    const headers = { 'x-schedule-owner': ENCODED_OWNER }
    const read = await JI.call('GET', '/agents/a1', { token: SCHEDULER_TOKEN, headers })
    forwarded(t, read, 200, '/agents/a1')
    t.same(read.upstream?.query.user_id, [OWNER])
    noOwnerHeader(t, read)
    const runReply = await JI.call('POST', '/agents/a1/runs', {
      token: SCHEDULER_TOKEN,
      headers,
      form: run('someone-else'),
    })
    forwarded(t, runReply, 200, '/agents/a1/runs')
    t.same(runReply.upstream?.form?.user_id, [OWNER])
    t.match(runReply.body, { user_id: OWNER })
    noOwnerHeader(t, runReply)
  },
)

void t.test(
  'V3-ISO-3 an X-Schedule-Owner that is not percent-encoded UTF-8 → 400 "Invalid X-Schedule-Owner header"',
  async (t) => {
    for (const value of ['%E0%A4%A', '%C3%28', '%zz']) {
      const reply = await JI.call('GET', '/agents/a1', {
        token: SCHEDULER_TOKEN,
        headers: { 'x-schedule-owner': value },
      })
      refused(t, reply, 400, 'Invalid X-Schedule-Owner header')
    }
  },
)

void t.test(
  'V3-ISO-3 naming no owner, or without isolation, the scheduler is unscoped and its run keeps the user_id the executor wrote',
  async (t) => {
    const cases = [
      ['JI without the header', JI, {}],
      ['J with the header', J, { 'x-schedule-owner': ENCODED_OWNER }],
    ] as const
    for (const [label, fixture, headers] of cases) {
      const read = await fixture.call('GET', '/agents/a1', { token: SCHEDULER_TOKEN, headers })
      forwarded(t, read, 200, '/agents/a1')
      t.equal(read.upstream?.query.user_id, undefined, `${label}: unscoped`)
      const runReply = await fixture.call('POST', '/agents/a1/runs', {
        token: SCHEDULER_TOKEN,
        headers,
        form: run('owner-1'),
      })
      forwarded(t, runReply, 200, '/agents/a1/runs')
      t.same(runReply.upstream?.form?.user_id, ['owner-1'], `${label}: the executor’s user_id`)
      noOwnerHeader(t, runReply)
    }
  },
)
