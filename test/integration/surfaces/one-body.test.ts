/**
 * One body per request, through the gateway: an identity pin and a surface's edit of the same
 * body both reach the upstream; a body nobody looks into reaches it byte for byte.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { jConfig, jwt, stack } from './helpers.js'

const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex')

const AGUI = { agui: { endpoints: [{ prefix: '', bound: 'agent' }] } }
const ISOLATED = await stack(t, jConfig({ user_isolation: true }, { interfaces: AGUI }))

void t.test(
  'identity pins user_id, AG-UI pins forwarded_props: the upstream gets both',
  async (t) => {
    const token = await jwt(['agents:run'], { sub: 'user-1' })
    const raw = '{"messages": [], "user_id": "victim", "forwarded_props": {"user_id": "victim"}}'
    const reply = await ISOLATED.call('POST', '/agui', { token, raw })
    t.equal(reply.status, 200)
    t.same(reply.upstream?.json, {
      messages: [],
      user_id: 'user-1',
      forwarded_props: { user_id: 'user-1' },
    })
    const sent = JSON.stringify(reply.upstream?.json)
    t.equal(
      reply.upstream?.bodySha256,
      sha256(sent),
      'serialized once, as JSON.stringify writes it',
    )
    t.equal(reply.upstream?.headers['content-length'], String(Buffer.byteLength(sent)))
  },
)

void t.test('a body nobody looks into arrives as sent, its content type too', async (t) => {
  const token = await jwt(['agents:run', 'sessions:read'], { sub: 'user-1' })
  // Not JSON by its Content-Type: no pin reads it, even under isolation.
  const raw = '{"user_id":  "victim" ,"x":[1,2]}\n'
  const type = 'text/plain; charset=ISO-8859-1'
  const reply = await ISOLATED.call('POST', '/agents/a1/runs', {
    token,
    raw,
    headers: { 'content-type': type },
  })
  t.equal(reply.upstream?.bodySha256, sha256(raw), 'byte for byte')
  t.equal(reply.upstream?.headers['content-type'], type)
  t.equal(reply.upstream?.headers['content-length'], String(Buffer.byteLength(raw)))
})
