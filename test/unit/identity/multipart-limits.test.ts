import type { Readable } from 'node:stream'
import t from 'tap'
import { GatewayError } from '../../../src/errors.js'
import {
  enforcer,
  field,
  multipartBody,
  planInput,
  readAll,
  refusal,
  serviceAccount,
} from './helpers.js'

const BOUNDARY = 'XyZ-client-boundary'
const TYPE = { 'content-type': `multipart/form-data; boundary="${BOUNDARY}"` }

void t.test('ISO-2: malformed bodies → 400, oversized fields and part floods → 413', async (t) => {
  const gateway = enforcer({ server: { max_body_bytes: 1024 } })
  const principal = serviceAccount('bot')
  const send = (headers: Record<string, string>, body: string) =>
    gateway.plan(planInput({ principal, method: 'POST', path: '/agents/a1/runs', headers, body }))
  const noBoundary = await refusal(() => send({ 'content-type': 'multipart/form-data' }, 'x'))
  t.equal(noBoundary.status, 400)
  t.equal(noBoundary.detail, 'Invalid multipart body')

  const failure = async (body: string): Promise<GatewayError> => {
    const plan = await send(TYPE, body)
    const error = await readAll(plan.body?.content as Readable).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    if (!(error instanceof GatewayError))
      throw new Error(`expected a GatewayError, got ${String(error)}`)
    return error
  }
  const truncated = await failure(`--${BOUNDARY}\r\n${field('a')}\r\n\r\nno end`)
  t.equal(
    truncated.detail,
    'Invalid multipart body',
    'a streamed body fails with the error the client should get',
  )
  const large = await failure(multipartBody(BOUNDARY, [[field('message'), 'x'.repeat(1025)]]))
  t.equal(large.status, 413)
  t.equal(large.detail, 'Request body too large')
  const flood = await failure(
    multipartBody(
      BOUNDARY,
      Array.from({ length: 2_001 }, () => [field('f'), ''] as [string, string]),
    ),
  )
  t.equal(flood.status, 413)
  const exact = await send(TYPE, multipartBody(BOUNDARY, [[field('message'), 'x'.repeat(1024)]]))
  t.ok(
    (await readAll(exact.body?.content as Readable)).length > 1024,
    'a field of exactly the bound passes',
  )
})
