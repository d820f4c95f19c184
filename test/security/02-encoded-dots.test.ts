/**
 * Attack class 2 — encoded dot segments (`%2e%2e`, `..%2f`, `%252e`, overlong UTF-8).
 * traefik#11746, GHSA-vrch-868g-9jx5, caddy#7941: the path is decoded once and an encoded dot is
 * refused, in any case, double-encoded or spelled as overlong UTF-8. Corpus:
 * test/fixtures/attacks/encoded-dots.txt, tried without a credential as GET, as an OPTIONS
 * preflight and as a WebSocket upgrade; see runPathCorpus for the oracle.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { securedGateway } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)

void t.test(
  'encoded-dots.txt: refused, or the public route the upstream reads as public',
  async (t) => {
    await runPathCorpus(t, gateway, runtime, 'encoded-dots.txt')
  },
)
