/**
 * Attack class 25 — brute force where failed lookups are never throttled (Kong plugin order,
 * cve-services#1885). Bad `svc_pat_` tokens from one client: the 21st failure in the window is a
 * 429 with Retry-After, over HTTP, upgrades and the workflow socket; a valid token from another
 * address is unaffected; IPv6 clients count by /64; X-Forwarded-For counts only from a trusted
 * proxy (another loopback address plays an untrusted peer). Corpus client-addresses.txt.
 */
import { request } from 'node:http'
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { badToken } from '../conformance/service-accounts/harness.js'
import { bearer, corpus, mintToken, securedGateway, send, upgrade, wsUrl } from './harness.js'

const THROTTLED = 'Too many failed authentication attempts'
const runtime = await startRuntime(t)
const behindProxy = await securedGateway(t, runtime, {
  service_accounts: { enabled: true },
  server: { trusted_proxies: ['127.0.0.1'] },
  interfaces: { workflow_websocket: { enabled: true } },
})
const valid = await mintToken(behindProxy, 'valid', ['sessions:read'])
let guess = 0
const attempt = (xff?: string, token = badToken(guess++)) =>
  send(behindProxy, runtime, 'GET', '/sessions', [
    bearer(token),
    ...(xff === undefined ? [] : [`X-Forwarded-For: ${xff}`]),
  ])

void t.test(
  'the 21st failure from one client is a 429 with Retry-After, on every transport',
  async (t) => {
    const statuses: number[] = []
    for (let index = 0; index < 20; index++) statuses.push((await attempt('192.0.2.1')).status)
    t.same(statuses, Array<number>(20).fill(401), 'twenty 401s')
    const throttled = await attempt('192.0.2.1')
    t.equal(throttled.status, 429)
    t.equal(throttled.detail, THROTTLED)
    t.ok(
      Number(throttled.headers['retry-after']) >= 1,
      `Retry-After: ${throttled.headers['retry-after']}`,
    )
    t.equal(throttled.started, 0, 'the upstream saw none of it')
    const ws = await upgrade(behindProxy, runtime, '/ws/echo', [
      bearer(badToken(guess++)),
      'X-Forwarded-For: 192.0.2.1',
    ])
    t.equal(ws.status, 429, 'an upgrade is throttled too')
    const client = await WsClient.open(t, wsUrl(behindProxy, '/workflows/ws'), [], {
      'x-forwarded-for': '192.0.2.1',
    })
    await client.next()
    client.socket.send(JSON.stringify({ action: 'authenticate', token: badToken(guess++) }))
    t.match(JSON.parse(String((await client.next()).data)), {
      event: 'auth_error',
      error: THROTTLED,
    })

    const other = await attempt('192.0.2.2', valid.token)
    t.equal(other.status, 200, 'a valid token from another address is unaffected')
    t.equal((await attempt('192.0.2.2')).status, 401, 'and that address still gets 401s')
  },
)

void t.test(
  'client-addresses.txt: a group is one client, however it spells its address',
  async (t) => {
    const groups = new Map<string, string[]>()
    for (const [address = '', group = ''] of corpus('client-addresses.txt')) {
      groups.set(group, [...(groups.get(group) ?? []), address])
    }
    for (const [group, addresses] of groups) {
      for (let index = 0; index < 20; index++) {
        t.equal(
          (await attempt(addresses[index % addresses.length])).status,
          401,
          `${group} #${index}`,
        )
      }
      for (const address of addresses) {
        t.equal((await attempt(address)).status, 429, `${group}: ${address} is throttled`)
      }
    }
    t.equal((await attempt('2001:db8:1:3::1')).status, 401, 'the next /64 is another client')
  },
)

/** GET /sessions from another loopback address, which is no trusted proxy. */
function fromUntrustedPeer(xff: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: behindProxy.port,
      localAddress: '127.0.0.2',
      path: '/sessions',
      headers: { authorization: `Bearer ${badToken(guess++)}`, 'x-forwarded-for': xff },
      agent: false,
    })
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

void t.test(
  'X-Forwarded-For from an untrusted peer is ignored: rotating it gains nothing',
  async (t) => {
    const statuses: number[] = []
    for (let index = 0; index < 22; index++)
      statuses.push(await fromUntrustedPeer(`198.51.100.${index}`))
    t.same(statuses, [...Array<number>(20).fill(401), 429, 429], 'counted against the socket peer')
  },
)
