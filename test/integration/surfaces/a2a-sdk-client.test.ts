/**
 * The official A2A client (`@a2a-js/sdk`, its v0.3 compatibility layer, as AgentOS speaks A2A
 * 0.3 on both lines) through real gateways pinned to 2.9 and to 3.0: agent card discovery,
 * `message/send`, `message/stream`, `tasks/get` and `tasks/cancel` with a JWT, a service account
 * and refused credentials. Each refusal must reach the client as AgentOS with its own auth gives
 * it (an HTTP status with `{"detail": …}`, which the client raises with the body), and what the
 * client sees of a success must be what it sees of the open AgentOS itself.
 */
import {
  Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client'
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client'
import { Role, TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk'
import t, { type Test } from 'tap'
import { ADMIN, ip, jConfig, jwt, withDatabase } from '../../conformance/fixtures.js'
import { grants, mint } from '../../conformance/service-accounts/harness.js'
import { bearerFetch, lineStacks } from './line-stacks.js'

const LINES = await lineStacks(t, () => jConfig({ user_isolation: true }, withDatabase(t)))
/** The card's address (the resolver's path argument replaces the whole path, so it is empty). */
const cardUrl = (base: string) => `${base}/a2a/agents/a1/.well-known/agent-card.json`
const SCOPES = ['agents:read', 'agents:run']

function message(text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  }
}

const send = (text: string) => ({
  tenant: '',
  message: message(text),
  configuration: undefined,
  metadata: undefined,
})

/** The card through the client's resolver (v0.3 cards translated), with this credential. */
async function discover(base: string, token: string | undefined): Promise<AgentCard> {
  const resolver = new DefaultAgentCardResolver({
    fetchImpl: bearerFetch(token),
    legacyCompat: { enabled: true },
  })
  return resolver.resolve(cardUrl(base), '')
}

/** A client discovered from the card, as an A2A client is normally made. */
async function fromCard(base: string, token: string | undefined): Promise<Client> {
  const fetchImpl = bearerFetch(token)
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
  })
  return factory.createFromUrl(cardUrl(base), '')
}

/**
 * A client of one of AgentOS's per-operation routes (`v1/message:send`, `v1/tasks:get`, …): the
 * card names only the streaming route, so a client that sends, reads or cancels is pointed at
 * the route itself. `fetchImpl` may edit the request (AgentOS reads `params.contextId`, which
 * the v0.3 client's task requests have no field for).
 */
function atRoute(base: string, route: string, fetchImpl: typeof fetch): Client {
  const transport = new LegacyJsonRpcTransport({
    endpoint: `${base}/a2a/agents/a1/v1/${route}`,
    fetchImpl,
  })
  return new Client(transport, {} as AgentCard)
}

/** A fetch adding `params.contextId` to the JSON-RPC request it sends. */
function withContextId(token: string | undefined, contextId: string): typeof fetch {
  const inner = bearerFetch(token)
  return (input, init) => {
    // The client's JSON-RPC transport sends its request as a JSON string.
    const body = JSON.parse(init?.body as string) as { params: Record<string, unknown> }
    body.params['contextId'] = contextId
    return inner(input, { ...init, body: JSON.stringify(body) })
  }
}

const textOf = (m: Message | undefined): string | undefined =>
  m?.parts[0]?.content?.$case === 'text' ? m.parts[0].content.value : undefined

/** The error the client raised, as text. */
async function failure(t: Test, promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  t.fail('the client raised no error')
  return ''
}

/** Every event of a stream the client reads, by kind. */
async function drain(stream: AsyncGenerator<{ payload?: { $case: string; value: unknown } }>) {
  const events: { $case: string; value: unknown }[] = []
  for await (const event of stream) if (event.payload !== undefined) events.push(event.payload)
  return events
}

for (const { line, s } of LINES) {
  const base = s.gateway.url
  const upstream = s.runtime.url
  const admin = await jwt([ADMIN], { sub: 'root' })
  const account = await mint(s, admin, { name: 'a2a-client', scopes: grants(...SCOPES) })
  const alias = '__portcullis__:sa:a2a-client'

  void t.test(`${line}: agent card discovery`, async (t) => {
    const card = await discover(base, await jwt(['agents:read']))
    const direct = await discover(upstream, undefined)
    t.equal(card.name, direct.name, 'the card of the open AgentOS')
    t.same(
      card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.url]),
      [['JSONRPC', '0.3.0', `${base}/a2a/agents/a1/v1/message:stream`]],
      'its one interface: the streaming route, at the address the client used',
    )
    // The resolver raises the status alone, as it would of AgentOS.
    t.match(await failure(t, discover(base, undefined)), /: 401$/, 'no credential')
    t.match(await failure(t, discover(base, await jwt(['agents:run']))), /: 403$/, 'no read scope')
    t.match(await failure(t, discover(base, await jwt([]))), /: 403$/, 'no scope')
  })

  void t.test(`${line}: message/send with a JWT and a service account`, async (t) => {
    const jwtResult = (await atRoute(
      base,
      'message:send',
      bearerFetch(await jwt(SCOPES)),
    ).sendMessage(send('hello'))) as Task
    t.equal(jwtResult.status?.state, TaskState.TASK_STATE_COMPLETED)
    t.ok(textOf(jwtResult.history[0]), 'the answer is the agent message in history')
    t.equal(jwtResult.history[0]?.metadata?.['userId'], 'alice', 'run as the token’s subject')
    const saResult = (await atRoute(base, 'message:send', bearerFetch(account.token)).sendMessage(
      send('hello'),
    )) as Task
    t.equal(saResult.history[0]?.metadata?.['userId'], alias, 'a service account: its alias')
    const direct = (await atRoute(upstream, 'message:send', bearerFetch(undefined)).sendMessage(
      send('hello'),
    )) as Task
    t.same(
      [direct.status?.state, direct.history.length, direct.artifacts],
      [jwtResult.status?.state, jwtResult.history.length, jwtResult.artifacts],
      'the same shape as from the open AgentOS',
    )
  })

  void t.test(`${line}: message/send refused as AgentOS refuses it`, async (t) => {
    const sendAs = async (token: string | undefined) =>
      failure(t, atRoute(base, 'message:send', bearerFetch(token)).sendMessage(send('hi')))
    t.equal(
      await sendAs(undefined),
      'HTTP error for message/send! Status: 401 Unauthorized. Response: {"detail":"Authorization header missing"}',
    )
    for (const scopes of [[], ['config:read'], ['agents:read']]) {
      t.equal(
        await sendAs(await jwt(scopes)),
        `HTTP error for message/send! Status: 403 Forbidden. Response: {"detail":"${ip('agents:run')}"}`,
        `scopes ${JSON.stringify(scopes)}`,
      )
    }
    const reader = await mint(s, admin, { name: 'a2a-reader', scopes: grants('agents:read') })
    t.match(await sendAs(reader.token), `403 Forbidden. Response: {"detail":"${ip('agents:run')}"}`)
  })

  void t.test(`${line}: message/stream through the card's interface`, async (t) => {
    for (const token of [await jwt(SCOPES), account.token]) {
      const client = await fromCard(base, token)
      const events = await drain(client.sendMessageStream(send('stream me')))
      t.same(
        events.map((event) => event.$case),
        ['statusUpdate', 'message', 'statusUpdate', 'task'],
        'working, the content, completed, the task',
      )
      const finalTask = events.at(-1)?.value as Task
      t.equal(finalTask.status?.state, TaskState.TASK_STATE_COMPLETED)
      t.ok(textOf(events[1]?.value as Message), 'the content message')
    }
    const directEvents = await drain(
      (await fromCard(upstream, undefined)).sendMessageStream(send('x')),
    )
    t.equal(directEvents.length, 4, 'as from the open AgentOS')
    const card = await discover(base, await jwt(SCOPES))
    const refusedClient = await new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({
          fetchImpl: bearerFetch(await jwt(['agents:read'])),
          legacyCompat: { enabled: true },
        }),
      ],
    }).createFromAgentCard(card)
    t.equal(
      await failure(t, drain(refusedClient.sendMessageStream(send('x')))),
      `HTTP error establishing stream for message/stream: 403 Forbidden. Response: {"detail":"${ip('agents:run')}"}`,
    )
  })

  void t.test(
    `${line}: a card-following client's message/send meets the streaming route`,
    async (t) => {
      // AgentOS's card names `message:stream`, which streams whatever the method: the client's
      // non-streaming send cannot read the answer, from the open AgentOS as through the gateway.
      const direct = await failure(t, (await fromCard(upstream, undefined)).sendMessage(send('x')))
      const through = await failure(
        t,
        (await fromCard(base, await jwt(SCOPES))).sendMessage(send('x')),
      )
      t.match(through, /JSON/)
      t.equal(through, direct)
    },
  )

  void t.test(`${line}: tasks/get`, async (t) => {
    const owner = await jwt(SCOPES, { sub: 'owner' })
    const started = (await atRoute(base, 'message:send', bearerFetch(owner)).sendMessage(
      send('remember'),
    )) as Task
    const get = (token: string | undefined, contextId?: string) =>
      atRoute(
        base,
        'tasks:get',
        contextId === undefined ? bearerFetch(token) : withContextId(token, contextId),
      ).getTask({ tenant: '', id: started.id })
    t.equal(
      await failure(t, get(owner)),
      'HTTP error for tasks/get! Status: 400 Bad Request. Response: {"detail":"contextId is required to poll a task"}',
      'the client has no field for the session AgentOS needs',
    )
    const found = await get(owner, started.contextId)
    t.same([found.id, found.status?.state], [started.id, TaskState.TASK_STATE_COMPLETED])
    t.equal(
      (await get(admin, started.contextId)).history[0]?.metadata?.['userId'],
      'owner',
      'an admin reads anyone’s',
    )
    t.equal(
      await failure(t, get(await jwt(SCOPES, { sub: 'intruder' }), started.contextId)),
      'HTTP error for tasks/get! Status: 404 Not Found. Response: {"detail":"Run not found"}',
      'another user',
    )
    t.match(await failure(t, get(account.token, started.contextId)), '404 Not Found', 'an account')
    t.equal(
      await failure(t, get(await jwt(['agents:run'], { sub: 'owner' }), started.contextId)),
      `HTTP error for tasks/get! Status: 403 Forbidden. Response: {"detail":"${ip('agents:read')}"}`,
    )
    t.match(await failure(t, get(undefined, started.contextId)), '401 Unauthorized')
    const mine = (await atRoute(base, 'message:send', bearerFetch(account.token)).sendMessage(
      send('mine'),
    )) as Task
    const own = await atRoute(
      base,
      'tasks:get',
      withContextId(account.token, mine.contextId),
    ).getTask({ tenant: '', id: mine.id })
    t.equal(own.history[0]?.metadata?.['userId'], alias, 'an account reads back its own')
  })

  void t.test(`${line}: tasks/cancel needs a run of the caller's own`, async (t) => {
    const victim = await jwt(SCOPES, { sub: 'victim' })
    const intruder = await jwt(SCOPES, { sub: 'intruder' })
    const run = (token: string) =>
      atRoute(base, 'message:send', bearerFetch(token)).sendMessage(send('work')) as Promise<Task>
    const target = await run(victim)
    const decoy = await run(intruder)
    const cancel = (token: string | undefined, taskId: string, contextId?: string) =>
      atRoute(
        base,
        'tasks:cancel',
        contextId === undefined ? bearerFetch(token) : withContextId(token, contextId),
      ).cancelTask({ tenant: '', id: taskId, metadata: undefined })
    const stateOf = async (task: Task) =>
      (
        await atRoute(base, 'tasks:get', withContextId(admin, task.contextId)).getTask({
          tenant: '',
          id: task.id,
        })
      ).status?.state
    t.equal(
      await failure(t, cancel(intruder, target.id)),
      'HTTP error for tasks/cancel! Status: 400 Bad Request. Response: {"detail":"contextId is required to cancel a task"}',
      'a scoped caller must name the session',
    )
    t.equal(
      await failure(t, cancel(intruder, target.id, decoy.contextId)),
      'HTTP error for tasks/cancel! Status: 404 Not Found. Response: {"detail":"Run not found"}',
      'another user’s run in the caller’s own session',
    )
    t.match(await failure(t, cancel(intruder, target.id, target.contextId)), '404 Not Found')
    t.match(await failure(t, cancel(account.token, target.id, target.contextId)), '404 Not Found')
    t.equal(await stateOf(target), TaskState.TASK_STATE_COMPLETED, 'the victim’s run lives on')
    t.equal(
      await failure(t, cancel(await jwt(['agents:read'], { sub: 'victim' }), target.id)),
      `HTTP error for tasks/cancel! Status: 403 Forbidden. Response: {"detail":"${ip('agents:run')}"}`,
    )
    const own = await cancel(victim, target.id, target.contextId)
    t.same([own.id, own.status?.state], [target.id, TaskState.TASK_STATE_CANCELED], 'the owner')
    t.equal(await stateOf(target), TaskState.TASK_STATE_CANCELED)
    const byAdmin = await cancel(admin, decoy.id)
    t.equal(byAdmin.status?.state, TaskState.TASK_STATE_CANCELED, 'an admin needs no session')
  })
}
