/**
 * The 3.0 handler checks claim nothing under the 2.9 line: through a gateway pinned to 2.9 in
 * front of the demo runtime as AgentOS 2.9.0, every request the 3.0 line checks goes on as one
 * request, unchanged, with no lookup and no owner recorded.
 */
import t from 'tap'
import { ADMIN, mintAccount, start, token } from './helpers.js'

void t.test('2.9: components, schedules, knowledge and draft runs as before', async (t) => {
  const stack = await start(t, { line: '2.9', userIsolation: true })
  const admin = await token([ADMIN], 'root')
  const account = await mintAccount(stack, admin, 'ci', [
    'components:read',
    'components:write',
    'components:delete',
    'schedules:read',
    'schedules:write',
    'knowledge:read',
    'knowledge:write',
    'knowledge:delete',
    'agents:run',
  ])
  const bob = await token(['components:read', 'schedules:read', 'knowledge:read'], 'bob')
  const requests: [string, string, string, object?][] = [
    ['POST', '/components', account, { json: { name: 'X', component_type: 'agent' } }],
    ['PATCH', '/components/someone-elses', account, { json: { name: 'mine' } }],
    ['DELETE', '/components/shared', account],
    ['GET', '/components', bob],
    ['POST', '/schedules', account, { json: { name: 's', endpoint: '/config', method: 'GET' } }],
    ['POST', '/schedules/any/trigger', account],
    ['GET', '/schedules/any', bob],
    ['GET', '/schedules', bob],
    ['DELETE', '/knowledge/content', account],
  ]
  for (const [method, path, credential, options] of requests) {
    await t.test(`${method} ${path}`, async (t) => {
      const reply = await stack.call(method, path, { token: credential, ...options })
      t.equal(reply.status, 200, reply.text)
      t.equal(stack.runtime.requests.length, 1, 'one request upstream: no lookup')
      t.not(reply.forwarded, undefined, 'the request itself went on')
    })
  }
  const content = await stack.call('GET', '/knowledge/content/any', { token: bob })
  t.equal(content.detail, 'Content not found: any', "the upstream's own 404")
  t.not(content.forwarded, undefined)
  const run = await stack.call('POST', '/agents/a1/runs', {
    token: account,
    form: { message: 'hi', version: '1', metadata: '{"agno_component_version": 1}' },
  })
  t.equal(run.status, 200, run.text)
  t.same(
    run.forwarded?.form?.['metadata'],
    ['{"agno_component_version": 1}'],
    'the run form untouched',
  )
  t.same(await stack.owners.ownerOf('component', 'x'), { known: false }, 'no owner recorded')
})
