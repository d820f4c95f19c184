/**
 * Attack class 4 — repeated slashes (`//admin`, `/api//admin`). Istio CVE-2021-31920: an empty
 * segment is refused (AgentOS would not merge it); only trailing slashes are stripped, as AgentOS
 * strips them. Corpus: test/fixtures/attacks/repeated-slashes.txt, tried without a credential as
 * GET, as an OPTIONS preflight and as a WebSocket upgrade; see runPathCorpus for the oracle.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { securedGateway } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)

void t.test(
  'repeated-slashes.txt: refused, or the public route the upstream reads as public',
  async (t) => {
    await runPathCorpus(t, gateway, runtime, 'repeated-slashes.txt')
  },
)
