/**
 * Attack class 3 — encoded reserved characters (`%2F`, `%5C`, `%00`, `%3B`, `%3F`, `%23`, `%25`).
 * Envoy CVE-2021-29492, Istio CVE-2021-31920: each is refused, or (a non-ASCII lookalike) is a
 * plain name to the gateway and to the upstream alike. Corpus: test/fixtures/attacks/encoded-
 * reserved.txt, tried without a credential as GET, as an OPTIONS preflight and as a WebSocket
 * upgrade; see runPathCorpus for the oracle.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { securedGateway } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)

void t.test(
  'encoded-reserved.txt: refused, or the public route the upstream reads as public',
  async (t) => {
    await runPathCorpus(t, gateway, runtime, 'encoded-reserved.txt')
  },
)
