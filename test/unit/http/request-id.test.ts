/** X-Request-Id on the answers Koa writes: the request's id, unless the answer carries one. */
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import t from 'tap'
import { setRequestId } from '../../../src/http/request-id.js'
import type { GatewayContext } from '../../../src/http/state.js'

function context(requestId: string | undefined): GatewayContext {
  const res = new ServerResponse(new IncomingMessage(new Socket()))
  const client = requestId === undefined ? undefined : { requestId }
  return { res, state: { client } } as unknown as GatewayContext
}

void t.test("an answer gets the request's id", (t) => {
  const ctx = context('req-1')
  setRequestId(ctx)
  t.equal(ctx.res.getHeader('x-request-id'), 'req-1')
  t.end()
})

void t.test("an upstream answer relayed whole keeps the upstream's id", (t) => {
  const ctx = context('req-2')
  ctx.res.setHeader('X-Request-ID', 'upstream-id')
  setRequestId(ctx)
  t.equal(ctx.res.getHeader('x-request-id'), 'upstream-id')
  t.end()
})

void t.test('a request refused before its client was read gets none', (t) => {
  const ctx = context(undefined)
  setRequestId(ctx)
  t.notOk(ctx.res.hasHeader('x-request-id'))
  t.end()
})
