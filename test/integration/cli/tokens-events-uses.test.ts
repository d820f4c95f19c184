/**
 * `portcullis tokens events` shows the events the gateway records as clients use tokens: a first
 * use, a use from a new address, refusals and the throttle, written through the audit queue.
 */
import t from 'tap'
import { portcullis } from '../../helpers/cli.js'
import { startGateway } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

const KEY = 'root-key-8d2c4a6e0b9f1d3c5e7a9b2d'

interface Event {
  type: string
  account_name: string | null
  client_address: string | null
  details: Record<string, unknown>
}

void t.test(
  'tokens events shows uses, refusals and the throttle as clients cause them',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startGateway(t, {
      upstream: { url: runtime.url },
      auth: { security_key: KEY },
      server: { trusted_proxies: ['127.0.0.1'] },
      audit: { flush_interval_ms: 20, refused_window_seconds: 1 },
    })
    const call = (path: string, token: string, address: string, method = 'GET') =>
      fetch(`${gateway.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
      })
    const minted = await fetch(`${gateway.url}/service-accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'used-bot', scopes: [{ scope: 'agents:read' }] }),
    })
    t.equal(minted.status, 201)
    const { id, token } = (await minted.json()) as { id: string; token: string }
    t.equal((await call('/agents', token, '203.0.113.1')).status, 200)
    t.equal((await call('/agents', token, '203.0.113.2')).status, 200)
    t.equal((await call(`/service-accounts/${id}`, KEY, '127.0.0.1', 'DELETE')).status, 204)
    const statuses: number[] = []
    for (let index = 0; index < 22; index += 1) {
      statuses.push((await call('/agents', token, '203.0.113.9')).status)
    }
    t.same(new Set(statuses), new Set([401, 429]), 'refused, then throttled')

    // Use events are written from a queue, a refusal window when it ends: wait for them.
    const wanted = ['first_use', 'use_from_new_address', 'refused', 'throttled']
    const recorded = async (): Promise<Event[]> => {
      const response = await fetch(`${gateway.url}/service-accounts/events?limit=100`, {
        headers: { authorization: `Bearer ${KEY}` },
      })
      return ((await response.json()) as { data: Event[] }).data
    }
    const deadline = Date.now() + 60_000
    for (;;) {
      const types = new Set((await recorded()).map((event) => event.type))
      if (wanted.every((type) => types.has(type))) break
      if (Date.now() > deadline) throw new Error(`events never written: ${wanted.join(', ')}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }

    const env = { OS_SECURITY_KEY: KEY, PORTCULLIS_URL: gateway.url }
    const listed = await portcullis(t, ['tokens', 'events', 'used-bot', '--json'], env)
    t.equal(listed.code, 0, listed.stderr)
    const events = JSON.parse(listed.stdout) as Event[]
    const of = (type: string) => events.filter((event) => event.type === type)
    t.match(of('first_use'), [{ account_name: 'used-bot', client_address: '203.0.113.1' }])
    t.match(of('use_from_new_address'), [
      { account_name: 'used-bot', client_address: '203.0.113.2' },
    ])
    t.match(of('refused'), [
      { account_name: 'used-bot', client_address: '203.0.113.9', details: { reason: 'revoked' } },
    ])
    const table = await portcullis(t, ['tokens', 'events', '--type', 'throttled'], env)
    t.equal(table.code, 0, table.stderr)
    t.match(table.stdout, / throttled +.* 203\.0\.113\.9 +.*state=entered/)
    t.notOk(listed.stdout.includes(token.slice(8)), 'never the token')
  },
)
