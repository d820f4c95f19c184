/**
 * Attack class 6 — the query string matched as a path (`/private?x=/public`). oauth2-proxy
 * GHSA-7rh7-c77v-6434: decisions are made on the path alone; a route named in the query changes
 * nothing. Corpus: test/fixtures/attacks/query-as-path.txt, tried without a credential as GET, as
 * an OPTIONS preflight and as a WebSocket upgrade; see runPathCorpus for the oracle.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { securedGateway } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)

void t.test(
  'query-as-path.txt: refused, or the public route the upstream reads as public',
  async (t) => {
    await runPathCorpus(t, gateway, runtime, 'query-as-path.txt')
  },
)
