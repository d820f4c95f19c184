/** The request steps: in order, each goes on or answers, immediate and waiting steps alike. */
import t from 'tap'
import { runSteps, type RequestStep } from '../../../src/http/request-step.js'
import type { GatewayContext } from '../../../src/http/state.js'

const CTX = {} as GatewayContext

function recording(log: string[], name: string, answer: boolean | Promise<boolean>): RequestStep {
  return () => {
    log.push(name)
    return answer
  }
}

void t.test('every step runs in order while each goes on', async (t) => {
  const log: string[] = []
  await runSteps([
    recording(log, 'a', true),
    recording(log, 'b', Promise.resolve(true)),
    recording(log, 'c', true),
  ])(CTX)
  t.same(log, ['a', 'b', 'c'])
})

void t.test('a step that answers ends the list, at once or after waiting', async (t) => {
  const immediate: string[] = []
  await runSteps([
    recording(immediate, 'a', true),
    recording(immediate, 'b', false),
    recording(immediate, 'c', true),
  ])(CTX)
  t.same(immediate, ['a', 'b'])
  const waiting: string[] = []
  await runSteps([recording(waiting, 'a', Promise.resolve(false)), recording(waiting, 'b', true)])(
    CTX,
  )
  t.same(waiting, ['a'])
})

void t.test("a step's failure reaches the caller (the error handler)", async (t) => {
  const failing: RequestStep = () => Promise.reject(new Error('upstream gone'))
  await t.rejects(runSteps([failing])(CTX), { message: 'upstream gone' })
  const throwing: RequestStep = () => {
    throw new Error('wiring fault')
  }
  await t.rejects(runSteps([throwing])(CTX), { message: 'wiring fault' })
})
