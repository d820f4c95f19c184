/**
 * The request path: its steps in order, each going on or answering, immediate and waiting steps
 * alike; a thrown error answered; observed from start to end in every case.
 */
import t from 'tap'
import type { RequestObserver } from '../../../src/http/middleware/observe.js'
import { requestPath, type RequestStep } from '../../../src/http/request-step.js'
import type { GatewayContext } from '../../../src/http/state.js'

function recording(log: string[], name: string, answer: boolean | Promise<boolean>): RequestStep {
  return () => {
    log.push(name)
    return answer
  }
}

/** A context whose answer Koa writes (respond), with a response that records its fields. */
function context(): { ctx: GatewayContext; fields: Map<string, string> } {
  const fields = new Map<string, string>()
  const res = {
    headersSent: false,
    hasHeader: (name: string) => fields.has(name),
    setHeader: (name: string, value: string) => fields.set(name, value),
  }
  const ctx = { state: { client: { requestId: 'req-1' } }, respond: true, res }
  return { ctx: ctx as unknown as GatewayContext, fields }
}

function run(
  steps: RequestStep[],
  log: string[] = [],
  answerThrown: (ctx: GatewayContext, thrown: unknown) => void = () => log.push('answered'),
) {
  const observer: RequestObserver = {
    enter: () => {
      log.push('enter')
      return 0
    },
    leave: () => log.push('leave'),
  }
  const { ctx, fields } = context()
  return { done: requestPath({ observer, answerThrown, steps })(ctx), fields }
}

void t.test('every step runs in order while each goes on, observed around them', async (t) => {
  const log: string[] = []
  const { done, fields } = run(
    [
      recording(log, 'a', true),
      recording(log, 'b', Promise.resolve(true)),
      recording(log, 'c', true),
    ],
    log,
  )
  await done
  t.same(log, ['enter', 'a', 'b', 'c', 'leave'])
  t.equal(fields.get('x-request-id'), 'req-1', 'the answer carries the request id')
})

void t.test('a step that answers ends the list, at once or after waiting', async (t) => {
  const immediate: string[] = []
  await run(
    [
      recording(immediate, 'a', true),
      recording(immediate, 'b', false),
      recording(immediate, 'c', true),
    ],
    immediate,
  ).done
  t.same(immediate, ['enter', 'a', 'b', 'leave'])
  const waiting: string[] = []
  await run(
    [recording(waiting, 'a', Promise.resolve(false)), recording(waiting, 'b', true)],
    waiting,
  ).done
  t.same(waiting, ['enter', 'a', 'leave'])
})

void t.test("a step's failure is answered, and the request still observed", async (t) => {
  const rejected: string[] = []
  const failing: RequestStep = () => Promise.reject(new Error('upstream gone'))
  const seen: unknown[] = []
  await run([failing, recording(rejected, 'never', true)], rejected, (_ctx, thrown) => {
    seen.push(thrown)
    rejected.push('answered')
  }).done
  t.same(rejected, ['enter', 'answered', 'leave'])
  t.match(seen, [{ message: 'upstream gone' }])
  const thrown: string[] = []
  const throwing: RequestStep = () => {
    throw new Error('wiring fault')
  }
  await run([throwing], thrown).done
  t.same(thrown, ['enter', 'answered', 'leave'])
})

void t.test(
  'a failure of the answer itself reaches Koa, after the request is observed',
  async (t) => {
    const log: string[] = []
    const failing: RequestStep = () => {
      throw new Error('refused')
    }
    await t.rejects(
      run([failing], log, () => {
        throw new Error('answer failed')
      }).done,
      { message: 'answer failed' },
    )
    t.same(log, ['enter', 'leave'])
  },
)
