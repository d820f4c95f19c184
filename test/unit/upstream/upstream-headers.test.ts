/** buildUpstreamHeaders without sockets: what of the client's headers reaches the upstream. */
import type { ForwardedBody } from '../../../src/inbound/client-body.js'
import t from 'tap'
import {
  NO_HEADER_CHANGES,
  PASS_THROUGH,
  type ForwardPlan,
} from '../../../src/upstream/forward-plan.js'
import {
  buildUpstreamHeaders,
  normalizeHeaderName,
  type UpstreamHeaderOptions,
} from '../../../src/upstream/upstream-headers.js'

const OPTIONS: UpstreamHeaderOptions = {
  identityPrefixes: ['x-auth-'],
  identityNames: new Set(['x-identity-proof']),
  preserveHost: false,
  upstreamHost: 'runtime:8000',
}
const CLIENT = { peer: '203.0.113.9', peerTrusted: false, requestId: 'req-1' }
const TRUSTED = { peer: '10.0.0.2', peerTrusted: true, requestId: 'req-2' }

/** The flat list as pairs, for readable assertions. */
function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = []
  for (let index = 0; index < flat.length; index += 2) {
    out.push([flat[index] as string, flat[index + 1] as string])
  }
  return out
}

function sent(
  raw: string[],
  plan: ForwardPlan = PASS_THROUGH,
  client = CLIENT,
  options = OPTIONS,
  body?: ForwardedBody,
): [string, string][] {
  return pairs(buildUpstreamHeaders(raw, options, client, plan, body))
}

const names = (headers: [string, string][]): string[] => headers.map(([name]) => name.toLowerCase())

void t.test('hop-by-hop fields and fields listed in Connection never pass', async (t) => {
  const headers = sent([
    'Host',
    'gw',
    'Connection',
    'keep-alive, X-Secret-Hop',
    'Keep-Alive',
    'timeout=5',
    'TE',
    'trailers',
    'Upgrade',
    'h2c',
    'Proxy-Authorization',
    'Basic x',
    'X-Secret-Hop',
    '1',
    'Transfer-Encoding',
    'chunked',
    'Expect',
    '100-continue',
    'Accept',
    'application/json',
  ])
  t.same(names(headers).slice(0, 1), ['accept'], 'only the end-to-end field is copied')
  t.notOk(names(headers).includes('x-secret-hop'), 'a Connection-listed field goes too')
})

void t.test('identity fields go in every spelling, whoever sends them', async (t) => {
  const headers = sent([
    'X-Auth-User-Id',
    'mallory',
    'x_auth_kind',
    'jwt',
    'X-AUTH-SCOPES',
    '["admin"]',
    'X-Identity-Proof',
    'forged',
    'X_Identity_Proof',
    'forged',
    'Accept',
    '*/*',
  ])
  t.same(
    names(headers).filter((name) => name.includes('auth') || name.includes('proof')),
    [],
  )
})

void t.test('path, method override and spoofable proxy fields never pass', async (t) => {
  const headers = sent([
    'X-Original-URL',
    '/admin',
    'X-Rewrite-URL',
    '/admin',
    'x_forwarded_prefix',
    '/x',
    'X-HTTP-Method-Override',
    'DELETE',
    'X-Real-IP',
    '1.2.3.4',
    'CF-Connecting-IP',
    '1.2.3.4',
    'X-Forwarded-Server',
    'evil',
    'Accept',
    '*/*',
  ])
  t.same(names(headers).slice(0, 1), ['accept'])
  t.equal(names(headers).filter((name) => name === 'x-real-ip').length, 0)
})

/**
 * Every field the gateway promises never to forward (SECURITY.md), written out here rather than
 * read from the source's lists, so that a name dropped from a list fails this test.
 */
const NEVER_FORWARDED_NAMES = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'expect',
  'x-original-url',
  'x-original-uri',
  'x-original-path',
  'x-rewrite-url',
  'x-rewritten-url',
  'x-forwarded-url',
  'x-forwarded-uri',
  'x-forwarded-path',
  'x-forwarded-prefix',
  'x-envoy-original-path',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-method',
  'x-forwarded-method',
  'x-real-ip',
  'true-client-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-original-forwarded-for',
  'x-forwarded-server',
  'x-forwarded-port',
  'x-host',
  'x-original-host',
]

void t.test('each never-forwarded field is dropped, in any case and `_` spelling', async (t) => {
  for (const name of NEVER_FORWARDED_NAMES) {
    const spellings = [name, name.toUpperCase(), name.replaceAll('-', '_')]
    const raw = spellings.flatMap((spelling) => [spelling, 'value'])
    const forwarded = names(sent([...raw, 'Accept', '*/*'], PASS_THROUGH, TRUSTED))
    t.same(
      forwarded.filter((sentName) => normalizeHeaderName(sentName) === name),
      [],
      `${name} is not forwarded`,
    )
    t.ok(forwarded.includes('accept'), `an end-to-end field beside ${name} still is`)
  }
})

void t.test('repeated Connection, X-Forwarded-For and Forwarded fields all count', async (t) => {
  const headers = sent(
    [
      'Connection',
      'X-First-Hop',
      'connection',
      'keep-alive, X-Second-Hop',
      'X-First-Hop',
      '1',
      'X-Second-Hop',
      '2',
      'X-Forwarded-For',
      '198.51.100.1',
      'x-forwarded-for',
      '198.51.100.2, 198.51.100.3',
      'Forwarded',
      'for=198.51.100.1',
      'forwarded',
      'for=198.51.100.2',
    ],
    PASS_THROUGH,
    TRUSTED,
  )
  const sentNames = names(headers)
  t.notOk(sentNames.includes('x-first-hop'), 'listed by the first Connection field')
  t.notOk(sentNames.includes('x-second-hop'), 'listed by the second Connection field')
  const values = Object.fromEntries(headers)
  t.equal(values['x-forwarded-for'], '198.51.100.1, 198.51.100.2, 198.51.100.3, 10.0.0.2')
  t.equal(values['forwarded'], 'for=198.51.100.1, for=198.51.100.2')
})

void t.test('X-Forwarded-* are rebuilt from what this hop vouches for', async (t) => {
  const raw = [
    'Host',
    'gateway.example',
    'X-Forwarded-For',
    '198.51.100.1',
    'X-Forwarded-Proto',
    'https',
    'X-Forwarded-Host',
    'public.example',
    'Forwarded',
    'for=198.51.100.1',
    'X-Request-Id',
    'theirs',
  ]
  const untrusted = Object.fromEntries(sent(raw))
  t.same(untrusted, {
    host: 'runtime:8000',
    'x-forwarded-for': '203.0.113.9',
    'x-forwarded-proto': 'http',
    'x-forwarded-host': 'gateway.example',
    'x-request-id': 'req-1',
  })
  const trusted = Object.fromEntries(sent(raw, PASS_THROUGH, TRUSTED))
  t.same(trusted, {
    host: 'runtime:8000',
    'x-forwarded-for': '198.51.100.1, 10.0.0.2',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'public.example',
    forwarded: 'for=198.51.100.1',
    'x-request-id': 'req-2',
  })
  const preserved = Object.fromEntries(
    sent(raw, PASS_THROUGH, CLIENT, { ...OPTIONS, preserveHost: true }),
  )
  t.equal(preserved['host'], 'gateway.example', 'upstream.preserve_host')
})

void t.test("the plan's drops, cookie removal and injected identity", async (t) => {
  const plan: ForwardPlan = {
    ...PASS_THROUGH,
    headers: {
      drop: new Set(['authorization', 'x-user-id']),
      dropCookie: 'access_token',
      inject: [
        ['X-Auth-User-Id', 'alice'],
        ['X-User-ID', 'alice'],
      ],
    },
  }
  const headers = sent(
    [
      'Authorization',
      'Bearer t',
      'X_User_Id',
      'mallory',
      'X-User-ID',
      'mallory',
      'Cookie',
      'a=1; access_token=secret; b=2',
      'X-Auth-User-Id',
      'mallory',
    ],
    plan,
  )
  t.same(
    headers.filter(([name]) => !/^(host|x-forwarded|x-request-id)/.test(name)),
    [
      ['Cookie', 'a=1; b=2'],
      ['X-Auth-User-Id', 'alice'],
      ['X-User-ID', 'alice'],
    ],
  )
  const onlyCredential = sent(['Cookie', 'access_token=secret'], plan)
  t.notOk(names(onlyCredential).includes('cookie'), 'an empty Cookie is not sent')
})

void t.test('a replaced body gets its own length and type, in one pass', async (t) => {
  const raw = [
    'Content-Type',
    'multipart/form-data; boundary=a',
    'Content-Length',
    '999',
    'content_length',
    '5',
    'Accept-Encoding',
    'gzip',
  ]
  const buffered = sent(raw, PASS_THROUGH, CLIENT, OPTIONS, {
    content: Buffer.from('{"a":1}'),
    contentType: undefined,
  })
  t.same(
    buffered.filter(([name]) => /content/i.test(name)),
    [
      ['Content-Type', 'multipart/form-data; boundary=a'],
      ['content-length', '7'],
    ],
    'every spelling of the old length goes; the type stays',
  )
  const { Readable } = await import('node:stream')
  const streamed = sent(raw, PASS_THROUGH, CLIENT, OPTIONS, {
    content: Readable.from([]),
    contentType: 'multipart/form-data; boundary=b',
  })
  t.same(
    streamed.filter(([name]) => /content/i.test(name)),
    [['content-type', 'multipart/form-data; boundary=b']],
    'a stream goes chunked, with the new type',
  )
  t.ok(names(buffered).includes('accept-encoding'), 'compression is the client’s choice')
})

void t.test('a response to be rewritten is asked for uncompressed', async (t) => {
  const headers = sent(['Accept-Encoding', 'gzip, br', 'accept_encoding', 'br'], {
    ...PASS_THROUGH,
    rewriteResponse: (response) => response,
  })
  t.notOk(names(headers).includes('accept-encoding'))
  t.notOk(names(headers).includes('accept_encoding'))
  t.equal(NO_HEADER_CHANGES.drop.size, 0)
})
