/**
 * Attack class 19 — `alg: none` and empty signatures (HAProxy src/jwt.c: none accepted when
 * unpinned; node-jsonwebtoken CVE-2022-23540). Every header of corpus alg-none.txt (every
 * spelling of none, empty, null, arrays, duplicate keys), with every signature form (empty, junk,
 * stripped, an extra dot, an HMAC with an empty key), is refused with 401 by an RS256 and an HS256
 * gateway, over HTTP, a relayed upgrade and the workflow socket's authenticate frame.
 */
import { createHmac } from 'node:crypto'
import t from 'tap'

import { base64url, fixtures } from '../helpers/jwt.js'
import { startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { bearer, corpus, refused, securedGateway, send, upgrade, wsUrl } from './harness.js'

const runtime = await startRuntime(t)
const interfaces = { workflow_websocket: { enabled: true } }
const gateways = {
  HS256: await securedGateway(t, runtime, { interfaces }),
  RS256: await securedGateway(t, runtime, {
    auth: { algorithm: 'RS256', verification_keys: [fixtures.rsaPublicPem()] },
    interfaces,
  }),
}
const payload = base64url(
  JSON.stringify({
    sub: 'mallory',
    scopes: ['os:admin'],
    exp: Math.floor(Date.now() / 1000) + 600,
  }),
)

function forge(headerJson: string, form: string): string {
  const head = `${base64url(headerJson)}.${payload}`
  switch (form) {
    case 'empty':
      return `${head}.`
    case 'junk':
      return `${head}.AAAA`
    case 'stripped':
      return head
    case 'dots':
      return `${head}..`
    case 'hmac-empty':
      return `${head}.${createHmac('sha256', '').update(head).digest('base64url')}`
    default:
      throw new Error(`alg-none.txt: unknown signature form ${form}`)
  }
}

for (const [alg, gateway] of Object.entries(gateways)) {
  void t.test(`alg-none.txt against an ${alg} gateway`, async (t) => {
    const socket = await WsClient.open(t, wsUrl(gateway, '/workflows/ws'))
    await socket.next()
    for (const [header = '', form = '', why = ''] of corpus('alg-none.txt')) {
      const token = forge(header, form)
      refused(
        t,
        await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)]),
        401,
        undefined,
        `HTTP: ${why}, ${form}`,
      )
      refused(
        t,
        await upgrade(gateway, runtime, '/ws/echo', [bearer(token)]),
        401,
        undefined,
        `upgrade: ${why}, ${form}`,
      )
      socket.socket.send(JSON.stringify({ action: 'authenticate', token }))
      t.match(
        JSON.parse(String((await socket.next()).data)),
        { event: 'auth_error' },
        `in band: ${why}, ${form}`,
      )
    }
    socket.socket.send(
      JSON.stringify({ action: 'start-workflow', workflow_id: 'w1', message: 'x' }),
    )
    t.match(
      JSON.parse(String((await socket.next()).data)),
      { event: 'auth_required' },
      'still unauthenticated',
    )
    t.equal(runtime.wsConnections.length, 0, 'no upstream socket was opened')
  })
}
