/**
 * The scene of the draft-version tests: an AgentOS 3.0 stack where alice owns a1, t1 and w1, each
 * with a draft version 1, and a1 a published version 2; bob and the service account `runner` may
 * run them but own nothing.
 */
import type { Test } from 'tap'
import { ADMIN, mintAccount, passed, start, token, type Stack } from './helpers.js'

export interface DraftScene {
  readonly stack: Stack
  readonly admin: string
  readonly alice: string
  readonly bob: string
  /** The `runner` service account's token. */
  readonly runner: string
}

async function component(stack: Stack, credential: string, id: string, type: string) {
  const reply = await stack.call('POST', '/components', {
    token: credential,
    json: { name: id, component_id: id, component_type: type, config: {} },
  })
  if (reply.status !== 201) throw new Error(`component ${id}: ${reply.status} ${reply.text}`)
}

export async function draftScene(
  t: Test,
  options: {
    readonly userIsolation: boolean
    readonly author: readonly string[]
    readonly runner: readonly string[]
  },
): Promise<DraftScene> {
  const stack = await start(t, { userIsolation: options.userIsolation })
  const admin = await token([ADMIN], 'root')
  const alice = await token([...options.author], 'alice')
  const bob = await token([...options.runner], 'bob')
  const runner = await mintAccount(stack, admin, 'runner', [...options.runner])
  await component(stack, alice, 'a1', 'agent')
  await component(stack, alice, 't1', 'team')
  await component(stack, alice, 'w1', 'workflow')
  passed(
    t,
    await stack.call('POST', '/components/a1/configs', {
      token: alice,
      json: { config: {}, stage: 'published' },
    }),
    201,
  )
  return { stack, admin, alice, bob, runner }
}
