/**
 * The inbound adapter without sockets: trusted proxies, the client address, the request id, and
 * the refusals every request gets before a decision (header count, doubled fields, Connection
 * options, ambiguous targets).
 */
import type { IncomingMessage } from 'node:http'
import t from 'tap'
import type { GatewayError } from '../../../src/errors.js'
import { isGatewayError } from '../../../src/errors.js'
import {
  normalizeAddress,
  resolveClientAddress,
  TrustedProxies,
} from '../../../src/inbound/client-address.js'
import { identifyClient, readInbound } from '../../../src/inbound/read-inbound.js'

/** Enough of a Node request for the adapter: socket address, target, method, headers. */
function nodeRequest(
  remoteAddress: string | undefined,
  rawHeaders: string[],
  url = '/agents',
  method = 'GET',
): IncomingMessage {
  const headers: Record<string, string> = {}
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase()
    const value = rawHeaders[index + 1] as string
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return {
    socket: { remoteAddress },
    url,
    method,
    headers,
    rawHeaders,
  } as unknown as IncomingMessage
}

function refusal(fn: () => unknown): GatewayError {
  try {
    fn()
  } catch (error) {
    if (isGatewayError(error)) return error
    throw error
  }
  throw new Error('expected a refusal')
}

void t.test('trusted proxies: addresses and CIDR ranges, IPv4 and IPv6', async (t) => {
  const trusted = new TrustedProxies(['10.0.0.0/8', '192.0.2.7', 'fd00::/8'])
  for (const address of ['10.1.2.3', '192.0.2.7', 'fd00::1']) t.ok(trusted.has(address), address)
  for (const address of ['11.0.0.1', '192.0.2.8', 'fe80::1', 'unknown', 'not-an-ip', '']) {
    t.notOk(trusted.has(address), address)
  }
  t.equal(trusted.has('10.1.2.3'), true, 'a remembered answer stays right')
  t.notOk(new TrustedProxies([]).has('127.0.0.1'), 'none configured: nobody is trusted')
})

void t.test('normalized peers: IPv4-mapped IPv6 is the IPv4 address', async (t) => {
  t.equal(normalizeAddress('::ffff:10.0.0.1'), '10.0.0.1')
  t.equal(normalizeAddress('::ffff:abcd'), '::ffff:abcd', 'not a mapped IPv4')
  t.equal(normalizeAddress(undefined), 'unknown')
  t.equal(normalizeAddress(''), 'unknown')
  t.equal(normalizeAddress('2001:db8::1'), '2001:db8::1')
})

void t.test('the client address: X-Forwarded-For only from trusted proxies', async (t) => {
  const trusted = new TrustedProxies(['10.0.0.0/8'])
  t.equal(resolveClientAddress('203.0.113.5', '198.51.100.1', trusted), '203.0.113.5', 'untrusted')
  t.equal(resolveClientAddress('10.0.0.2', undefined, trusted), '10.0.0.2', 'no header')
  t.equal(resolveClientAddress('10.0.0.2', '198.51.100.1', trusted), '198.51.100.1')
  t.equal(
    resolveClientAddress('10.0.0.2', '1.1.1.1, 198.51.100.1, 10.0.0.9', trusted),
    '198.51.100.1',
    'the right-most entry that is not a trusted proxy',
  )
  t.equal(
    resolveClientAddress('10.0.0.2', ['1.1.1.1', '198.51.100.1'], trusted),
    '198.51.100.1',
    'repeated headers are one list',
  )
  t.equal(
    resolveClientAddress('10.0.0.2', '1.1.1.1, garbage, 10.0.0.9', trusted),
    '10.0.0.9',
    'a non-address stops at the last hop believed',
  )
  t.equal(
    resolveClientAddress('10.0.0.2', '10.0.0.8, 10.0.0.9', trusted),
    '10.0.0.8',
    'all trusted: the left-most',
  )
  t.equal(resolveClientAddress('10.0.0.2', '::ffff:198.51.100.1', trusted), '198.51.100.1')
})

void t.test('one X-Forwarded-For hop reads as the list of one it is', async (t) => {
  const trusted = new TrustedProxies(['10.0.0.0/8'])
  const asList = (hop: string) => resolveClientAddress('10.0.0.2', [hop], trusted)
  for (const hop of [
    ' 198.51.100.1 ',
    '2001:db8::7',
    '10.0.0.9',
    '::ffff:10.0.0.9',
    'garbage',
    '',
    ' ',
    '198.51.100.1:4711',
  ]) {
    t.equal(resolveClientAddress('10.0.0.2', hop, trusted), asList(hop), JSON.stringify(hop))
  }
  t.equal(resolveClientAddress('10.0.0.2', ' 198.51.100.1 ', trusted), '198.51.100.1')
  t.equal(resolveClientAddress('10.0.0.2', '10.0.0.9', trusted), '10.0.0.9', 'a trusted hop')
  t.equal(resolveClientAddress('10.0.0.2', 'garbage', trusted), '10.0.0.2', 'not an address')
  t.equal(resolveClientAddress('10.0.0.2', '', trusted), '10.0.0.2', 'empty')
})

void t.test('identifyClient: peer, trust, client address and request id', async (t) => {
  const trusted = new TrustedProxies(['10.0.0.0/8'])
  const viaProxy = identifyClient(
    nodeRequest('::ffff:10.0.0.2', ['X-Forwarded-For', '198.51.100.1', 'X-Request-Id', 'trace-1']),
    trusted,
  )
  t.same(viaProxy, {
    peer: '10.0.0.2',
    peerTrusted: true,
    clientAddress: '198.51.100.1',
    requestId: 'trace-1',
  })
  const direct = identifyClient(
    nodeRequest('203.0.113.5', ['X-Forwarded-For', '198.51.100.1', 'X-Request-Id', 'trace-1']),
    trusted,
  )
  t.equal(direct.clientAddress, '203.0.113.5', 'an untrusted peer cannot claim an address')
  t.match(direct.requestId, /^[0-9a-f-]{36}$/, 'nor choose its request id')
  const malformed = identifyClient(nodeRequest('10.0.0.2', ['X-Request-Id', 'a b']), trusted)
  t.match(malformed.requestId, /^[0-9a-f-]{36}$/, "a trusted proxy's malformed id is replaced")
})

void t.test('readInbound: the canonical target and the request as decided on', async (t) => {
  const settings = { trustedProxies: new TrustedProxies([]), maxHeadersCount: 4 }
  const req = nodeRequest('203.0.113.5', ['Host', 'gw'], '/agents/a%20b/?x=1', 'POST')
  const client = identifyClient(req, settings.trustedProxies)
  const inbound = readInbound(req, client, 'http', settings)
  t.match(inbound, {
    method: 'POST',
    path: '/agents/a b',
    forwardPath: '/agents/a%20b',
    query: 'x=1',
    transport: 'http',
    clientAddress: '203.0.113.5',
    requestId: client.requestId,
  })
  t.equal(inbound.rawHeaders, req.rawHeaders)
  t.equal(readInbound(req, client, 'websocket', settings).transport, 'websocket')
})

void t.test('readInbound refuses what could be read two ways', async (t) => {
  const settings = { trustedProxies: new TrustedProxies([]), maxHeadersCount: 3 }
  const read = (rawHeaders: string[], url = '/agents') => {
    const req = nodeRequest('203.0.113.5', rawHeaders, url)
    return () => readInbound(req, identifyClient(req, settings.trustedProxies), 'http', settings)
  }
  t.match(refusal(read(['A', '1', 'B', '2', 'C', '3', 'D', '4'])), {
    status: 431,
    reason: 'headers.count',
  })
  t.match(refusal(read(['Host', 'a', 'host', 'b'])), {
    status: 400,
    reason: 'headers.duplicate_host',
  })
  t.match(refusal(read(['Content-Type', 'a/b', 'content-type', 'c/d'])), {
    reason: 'headers.duplicate_content_type',
  })
  t.doesNotThrow(read(['Host', 'a', 'Content-Type', 'a/b']), 'one of each is no duplicate')
  t.match(refusal(read(['Content-Type', 'a/b', 'Host', 'a', 'HOST', 'b'])), {
    reason: 'headers.duplicate_host',
  })
  t.match(refusal(read(['Host', 'a', 'Content-Type', 'a/b', 'CONTENT-TYPE', 'c/d'])), {
    reason: 'headers.duplicate_content_type',
  })
  t.match(refusal(read(['Connection', 'close, Content-Type'])), {
    reason: 'headers.connection_option',
  })
  t.match(refusal(read([], '/agents/../config')), { status: 400, reason: 'path.dot_segment' })
  t.match(refusal(read([], '/agents%2Fa1')), { status: 400, reason: 'path.encoded_reserved' })
  t.doesNotThrow(read(['Connection', 'keep-alive', 'Host', 'gw']))
  t.doesNotThrow(read(['A', '1', 'B', '2', 'C', '3']), 'exactly the limit is accepted')
  for (const field of [
    'Content-Type',
    'Content-Length',
    'Content-Encoding',
    'Host',
    'X-Agent-Id',
  ]) {
    t.match(
      refusal(read(['Connection', `keep-alive, ${field.toLowerCase()}`])),
      { status: 400, reason: 'headers.connection_option' },
      `Connection may not list ${field}`,
    )
  }
  t.match(
    refusal(read(['Connection', ' Content-Type '])),
    { status: 400, reason: 'headers.connection_option' },
    'a single option, in any case, is read as a list of one',
  )
  t.doesNotThrow(read(['Connection', 'X-Custom-Hop']), 'other fields may be hop-by-hop')
})
