/**
 * The shared runner of the path corpora (attack classes 1-8): every line, expanded with public and
 * protected routes, as GET, as a preflight and as an upgrade, judged by what the upstream read.
 */
import type { Test } from 'tap'
import type { AgentRuntime } from '../../demo/runtime/index.js'
import type { TestGateway } from '../helpers/gateway.js'
import {
  corpus,
  expand,
  identityOf,
  INVALID_PATH,
  PUBLIC_ROUTES,
  refused,
  send,
  upgrade,
} from './harness.js'

/** `/agents/a1/` and `/agents/a1` are one route to AgentOS: it strips trailing slashes. */
export function upstreamMeaning(recordedPath: string): string {
  const stripped = recordedPath.replace(/\/+$/, '')
  return stripped === '' ? '/' : stripped
}

/** What a path-corpus line expects without a credential: a refusal, or the public route served. */
export type PathExpectation = '400' | '401' | 'public'

/**
 * Runs a path corpus (`template<TAB>expected<TAB>why`) against `gateway` without a credential,
 * as GET, as an OPTIONS preflight and as a WebSocket upgrade. A refusal must reach nothing; a
 * `public` line must reach the upstream exactly once, at a route the upstream itself reads as
 * public (decoded once, trailing slashes stripped).
 */
export async function runPathCorpus(
  t: Test,
  gateway: TestGateway,
  runtime: AgentRuntime,
  name: string,
  publicRoutes: readonly string[] = ['/', ...PUBLIC_ROUTES],
): Promise<void> {
  const preflight = ['Origin: http://localhost:3000', 'Access-Control-Request-Method: GET']
  for (const [template = '', expected = '', why = template] of corpus(name)) {
    for (const target of expand(template)) {
      const label = `${why}: ${JSON.stringify(target)}`
      const get = await send(gateway, runtime, 'GET', target)
      const options = await send(gateway, runtime, 'OPTIONS', target, preflight)
      const ws = await upgrade(gateway, runtime, target)
      if (expected === '400') {
        refused(t, get, 400, INVALID_PATH, `GET ${label}`)
        refused(t, options, 400, INVALID_PATH, `OPTIONS ${label}`)
        refused(t, ws, 400, INVALID_PATH, `upgrade ${label}`)
      } else if (expected === '401') {
        refused(t, get, 401, undefined, `GET ${label}`)
        refused(t, ws, 401, undefined, `upgrade ${label}`)
        t.equal(options.upstream.length, 1, `OPTIONS ${label}: a preflight passes`)
        t.same(identityOf(options.upstream[0]?.rawHeaders ?? []), {}, 'anonymously')
      } else if (expected === 'public') {
        t.equal(get.upstream.length, 1, `GET ${label}: forwarded once`)
        const seen = upstreamMeaning(get.upstream[0]?.path ?? '')
        t.ok(publicRoutes.includes(seen), `GET ${label}: the upstream read ${seen}, a public route`)
        t.not(ws.status, 101, `upgrade ${label}: no WebSocket at a public HTTP route`)
        t.equal(ws.sockets.length, 0)
      } else {
        throw new Error(`${name}: unknown expectation ${expected}`)
      }
    }
  }
}
