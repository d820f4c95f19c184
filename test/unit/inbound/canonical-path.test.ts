import t from 'tap'
import { canonicalizeTarget } from '../../../src/inbound/canonical-path.js'

const accepted: [raw: string, path: string, forwardPath: string, query: string][] = [
  ['/', '/', '/', ''],
  ['/agents', '/agents', '/agents', ''],
  ['/agents/', '/agents', '/agents', ''],
  ['/agents///', '/agents', '/agents', ''],
  ['/health/', '/health', '/health', ''],
  ['/agents?stream=true&x=%2F', '/agents', '/agents', 'stream=true&x=%2F'],
  ['/agents/?a=1', '/agents', '/agents', 'a=1'],
  ['/agents/a%31', '/agents/a1', '/agents/a1', ''],
  ['/agents/%61%67', '/agents/ag', '/agents/ag', ''],
  [
    '/a2a/agents/x/v1/message:send',
    '/a2a/agents/x/v1/message:send',
    '/a2a/agents/x/v1/message:send',
    '',
  ],
  [
    '/knowledge/content/with%20space',
    '/knowledge/content/with space',
    '/knowledge/content/with%20space',
    '',
  ],
  ['/sessions/%C3%A9t%C3%A9', '/sessions/été', '/sessions/%C3%A9t%C3%A9', ''],
  ['/Agents', '/Agents', '/Agents', ''],
  ['/agents/a1?', '/agents/a1', '/agents/a1', ''],
  ['/agents/..a', '/agents/..a', '/agents/..a', ''],
  ['/agents/a.b', '/agents/a.b', '/agents/a.b', ''],
  ["/x/!$&'()*+,=:@~-_", "/x/!$&'()*+,=:@~-_", "/x/!$&'()*+,=:@~-_", ''],
]

const refused: [raw: string, why: string][] = [
  ['/public/../agents', 'dot-dot segment'],
  ['/public/./agents', 'dot segment'],
  ['/agents/..', 'trailing dot-dot'],
  ['/..', 'root dot-dot'],
  ['/public/..;/agents', 'semicolon (..;/)'],
  ['/agents;jsessionid=1', 'semicolon parameter'],
  ['/public/%2e%2e/agents', 'encoded dot-dot'],
  ['/public/%2E%2E/agents', 'encoded dot-dot upper case'],
  ['/public/.%2e/agents', 'mixed dot-dot'],
  ['/public/%2e/agents', 'encoded dot'],
  ['/agents/a%2eb', 'any encoded dot'],
  ['/public/%252e%252e/agents', 'double-encoded dot-dot'],
  ['/agents%2Fa1', 'encoded slash'],
  ['/agents%2fa1', 'encoded slash lower case'],
  ['/agents%5Ca1', 'encoded backslash'],
  ['/agents\\a1', 'backslash'],
  ['/agents%00', 'encoded NUL'],
  ['/agents%0a', 'encoded LF'],
  ['/agents%3Bx', 'encoded semicolon'],
  ['/agents%3Fx', 'encoded question mark'],
  ['/agents%23x', 'encoded hash'],
  ['/agents%25', 'encoded percent'],
  ['/agents#frag', 'fragment'],
  ['/agents?x=1#frag', 'fragment after query'],
  ['//agents', 'leading double slash'],
  ['/api//agents', 'inner double slash'],
  ['//', 'only slashes'],
  ['/agents/%', 'truncated escape'],
  ['/agents/%4', 'short escape'],
  ['/agents/%zz', 'non-hex escape'],
  ['/agents/%C0%AE%C0%AE', 'overlong UTF-8 dots'],
  ['/agents/%C0%AF', 'overlong UTF-8 slash'],
  ['/agents/%E0%80%AF', 'overlong 3-byte slash'],
  ['/agents/%FF', 'invalid UTF-8'],
  ['/agents/%C3', 'truncated UTF-8'],
  ['agents', 'no leading slash'],
  ['*', 'asterisk form'],
  ['http://example.com/agents', 'absolute form'],
  ['/agents a', 'space'],
  ['/agents/\u00e9', 'raw non-ASCII'],
  ['/agents"', 'quote'],
]

void t.test('accepted targets canonicalize to one meaning', async (t) => {
  for (const [raw, path, forwardPath, query] of accepted) {
    t.same(canonicalizeTarget(raw), { path, forwardPath, query }, raw)
  }
})

void t.test('ambiguous targets are refused with INVALID_PATH', async (t) => {
  for (const [raw, why] of refused) {
    t.throws(() => canonicalizeTarget(raw), { code: 'INVALID_PATH', status: 400 }, `${why}: ${raw}`)
  }
})

void t.test('look-alikes are refused with reasons of their own, names keep them', async (t) => {
  const reasonOf = (raw: string) => {
    try {
      canonicalizeTarget(raw)
      return 'accepted'
    } catch (error) {
      return (error as { reason?: string }).reason
    }
  }
  t.equal(reasonOf('/agents/a1%20'), 'path.trailing_whitespace', 'a trailing space')
  t.equal(reasonOf('/agents%C2%A0/a1'), 'path.trailing_whitespace', 'a no-break space')
  t.equal(reasonOf('/agents/a1%E3%80%80'), 'path.trailing_whitespace', 'an ideographic space')
  t.equal(reasonOf('/agents/%20a1'), 'accepted', 'a leading space is part of the name')
  t.equal(reasonOf('/health/%EF%BC%8E%EF%BC%8E/agents'), 'path.dot_lookalike', 'fullwidth dots')
  t.equal(reasonOf('/health/%E2%80%A5/agents'), 'path.dot_lookalike', 'a two-dot leader')
  t.equal(reasonOf('/health/%E3%80%82/agents'), 'path.dot_lookalike', 'an ideographic stop')
  t.equal(reasonOf('/agents/v1%EF%BC%8E2'), 'accepted', 'a look-alike inside a name')
  t.equal(reasonOf('/agents/...'), 'accepted', 'three ASCII dots stay a name, as before')
})

void t.test('the forwarded path decodes back to the decision path', async (t) => {
  for (const [raw] of accepted) {
    const { path, forwardPath } = canonicalizeTarget(raw)
    t.equal(decodeURIComponent(forwardPath), path, raw)
    t.same(canonicalizeTarget(forwardPath).path, path, `${raw} is idempotent`)
  }
})

void t.test(
  'a path with nothing to decode reads as the same path made to go the long way',
  async (t) => {
    // `%41` (A) sends a target through the decoding path; the answer must not depend on it.
    const paths = [
      '/',
      '/agents',
      '/agents/',
      '/agents///',
      '/agents/a1/runs',
      '/a/.hidden/b',
      '/a/.../b',
      '/a/b..c/',
      "/x/!$&'()*+,=:@~-_.y",
      '/A',
    ]
    for (const path of paths) {
      const slow = `/%41${path}`
      const fast = `/A${path}`
      const expected = canonicalizeTarget(slow)
      t.same(canonicalizeTarget(`${fast}?q=1`), { ...expected, query: 'q=1' }, path)
    }
    for (const unclean of ['//', '/a//b', '/a/./b', '/a/../b', '/a/.', '/a/..', '/./', '/..']) {
      t.throws(() => canonicalizeTarget(unclean), { code: 'INVALID_PATH' }, unclean)
    }
  },
)
