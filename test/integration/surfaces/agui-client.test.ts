/**
 * AG-UI's own clients, `@ag-ui/client`'s HttpAgent and `@ag-ui/agno`'s AgnoAgent (an HttpAgent
 * that declares the AG-UI version Agno speaks), through real gateways pinned to 2.9 and to 3.0:
 * a run streams its events through the gateway with a JWT and a service account, the run is the
 * caller's whatever `forwardedProps.user_id` says, and each refusal reaches the client as
 * AgentOS with its own auth gives it (HTTP status and `{"detail": …}`, which HttpAgent raises).
 */
import { AgnoAgent } from '@ag-ui/agno'
import { HttpAgent, type BaseEvent } from '@ag-ui/client'
import t, { type Test } from 'tap'
import { ADMIN, ip, jConfig, jwt, withDatabase } from '../../conformance/fixtures.js'
import { grants, mint } from '../../conformance/service-accounts/harness.js'
import { sessionUser } from './helpers.js'
import { lineStacks } from './line-stacks.js'

const AGUI = {
  agui: {
    endpoints: [
      { prefix: '', bound: 'agent' },
      { prefix: '/team', bound: 'team' },
    ],
  },
}
const LINES = await lineStacks(t, () => jConfig({}, { interfaces: AGUI, ...withDatabase(t) }))

type AgentClass = typeof HttpAgent | typeof AgnoAgent

interface Run {
  readonly threadId: string
  readonly events: string[]
  readonly answer: unknown
  readonly error: (Error & { status?: number }) | undefined
}

/** One run of `Agent` at `url` with this credential: the events it saw, its answer or error. */
async function run(
  Agent: AgentClass,
  url: string,
  token: string | undefined,
  forwardedProps: Record<string, unknown> = {},
): Promise<Run> {
  const agent = new Agent({
    url,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    initialMessages: [{ id: crypto.randomUUID(), role: 'user', content: 'hello' }],
  })
  const events: string[] = []
  let error: Run['error']
  const { newMessages } = await agent.runAgent(
    { forwardedProps },
    {
      onEvent: ({ event }: { event: BaseEvent }) => {
        events.push(event.type)
      },
      // A client application's handler: the error is kept, not rethrown.
      onRunFailed: ({ error: failed }) => {
        error = failed
        return { stopPropagation: true }
      },
    },
  )
  const answer = newMessages.find((m) => m.role === 'assistant')?.content
  return { threadId: agent.threadId, events, answer, error }
}

const STREAM = [
  'RUN_STARTED',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'RUN_FINISHED',
]

function refusedWith(t: Test, outcome: Run, status: number, detail: string, what: string): void {
  t.same(
    [outcome.error?.status, outcome.error?.message, outcome.events],
    [status, `HTTP ${status}: ${JSON.stringify({ detail })}`, []],
    what,
  )
}

for (const { line, s } of LINES) {
  const agui = `${s.gateway.url}/agui`
  const admin = await jwt([ADMIN], { sub: 'root' })
  const account = await mint(s, admin, { name: 'agui-client', scopes: grants('agents:run') })

  for (const [name, Agent] of [
    ['HttpAgent', HttpAgent],
    ['AgnoAgent', AgnoAgent],
  ] as const) {
    void t.test(`${line} ${name}: a run streams through the gateway`, async (t) => {
      const direct = await run(Agent, `${s.runtime.url}/agui`, undefined)
      t.same(direct.events, STREAM, 'the open AgentOS')
      const byJwt = await run(Agent, agui, await jwt(['agents:run']), { user_id: 'victim' })
      t.same([byJwt.error, byJwt.events], [undefined, STREAM], 'a JWT')
      t.equal(typeof byJwt.answer, 'string', 'the answer is an assistant message')
      t.equal(byJwt.answer, direct.answer, 'the same answer')
      t.equal(await sessionUser(s, 'agents', byJwt.threadId), 'alice', 'run as the caller')
      const bySa = await run(Agent, agui, account.token)
      t.same(bySa.events, STREAM, 'a service account')
      t.equal(await sessionUser(s, 'agents', bySa.threadId), '__portcullis__:sa:agui-client')
      const team = await run(Agent, `${s.gateway.url}/team/agui`, await jwt(['teams:run']))
      t.same(team.events, STREAM, 'the team-bound endpoint with teams:run')
    })
  }

  void t.test(`${line}: refusals reach the client as AgentOS gives them`, async (t) => {
    refusedWith(
      t,
      await run(HttpAgent, agui, undefined),
      401,
      'Authorization header missing',
      'none',
    )
    for (const scopes of [[], ['config:read'], ['teams:run']]) {
      refusedWith(
        t,
        await run(AgnoAgent, agui, await jwt(scopes)),
        403,
        ip('agents:run'),
        `scopes ${JSON.stringify(scopes)}`,
      )
    }
    const reader = await mint(s, admin, { name: 'agui-reader', scopes: grants('agents:read') })
    refusedWith(t, await run(HttpAgent, agui, reader.token), 403, ip('agents:run'), 'an account')
    refusedWith(
      t,
      await run(HttpAgent, `${s.gateway.url}/team/agui`, await jwt(['agents:run'])),
      403,
      ip('teams:run'),
      'the team-bound endpoint',
    )
    refusedWith(
      t,
      await run(HttpAgent, agui, 'not-a-token'),
      401,
      'Invalid token: Not enough segments',
      'an unreadable token',
    )
  })
}
