/**
 * Attack class 9 — rewrite after the authorization decision (Traefik CVE-2026-48020,
 * CVE-2026-67309: a strip-prefix or rewrite produced a traversal after auth). Portcullis rewrites
 * nothing but the encoding: the target is decoded once, authorized, and re-encoded so that the
 * upstream decodes exactly the authorized path. Oracle: with per-resource grants, a request is
 * forwarded exactly when the path the upstream decodes names a granted id.
 * Corpus: test/fixtures/attacks/resource-encodings.txt.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import {
  bearer,
  corpus,
  INVALID_PATH,
  jwt,
  refused,
  securedGateway,
  send,
  upgrade,
} from './harness.js'
import { upstreamMeaning } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)
const GRANTED = new Set(['a1', 'café'])
const token = await jwt(['agents:a1:read', 'agents:café:read'], { sub: 'alice' })

void t.test(
  'GET /agents/{id}: forwarded exactly when the upstream decodes a granted id',
  async (t) => {
    for (const [spelling = '', decoded = '', why = ''] of corpus('resource-encodings.txt')) {
      const label = `${why} (${spelling})`
      const sent = await send(gateway, runtime, 'GET', `/agents/${spelling}`, [bearer(token)])
      if (decoded === '400') {
        refused(t, sent, 400, INVALID_PATH, label)
      } else if (GRANTED.has(decoded)) {
        t.not(sent.status, 403, `${label}: allowed (the status is the upstream's)`)
        t.equal(sent.upstream.length, 1, `${label}: forwarded once`)
        t.equal(
          upstreamMeaning(sent.upstream[0]?.path ?? ''),
          `/agents/${decoded}`,
          `${label}: as authorized`,
        )
      } else {
        refused(t, sent, 403, undefined, label)
      }
    }
  },
)

void t.test(
  'the query string is forwarded byte for byte, never merged into the path',
  async (t) => {
    for (const query of ['x=%2F..%2Fconfig', 'a=1&a=2', 'q=%E2%82%AC;b', 'path=/config#']) {
      const sent = await send(gateway, runtime, 'GET', `/agents/a1?${query}`, [bearer(token)])
      if (query.includes('#')) {
        refused(t, sent, 400, INVALID_PATH, query)
        continue
      }
      t.equal(sent.upstream[0]?.rawUrl, `/agents/a1?${query}`, query)
    }
  },
)

void t.test('WebSocket: the upstream socket opens at the path that was authorized', async (t) => {
  const reader = await jwt(['workflows:ws:read'], { sub: 'alice' })
  for (const spelling of ['ws', '%77s', '%77%73', 'ws/', 'ws//']) {
    const sent = await upgrade(gateway, runtime, `/workflows/${spelling}`, [bearer(reader)])
    t.equal(sent.status, 101, spelling)
    t.equal(sent.sockets[0]?.path, '/workflows/ws', `${spelling}: the socket is /workflows/ws`)
  }
  for (const spelling of ['w%73x', 'WS', '%2e%2e/ws']) {
    const sent = await upgrade(gateway, runtime, `/workflows/${spelling}`, [bearer(reader)])
    t.not(sent.status, 101, `${spelling}: not the granted socket`)
    t.equal(sent.sockets.length, 0)
  }
})
