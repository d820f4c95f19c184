/**
 * Attack class 5 — a fragment in the request target (`/admin#x`, `/admin%23x`). Envoy
 * CVE-2021-32779, oauth2-proxy GHSA-pxq7-h93f-9jrg: every raw or encoded `#` is refused. Corpus:
 * test/fixtures/attacks/fragments.txt, tried without a credential as GET, as an OPTIONS preflight
 * and as a WebSocket upgrade; see runPathCorpus for the oracle.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { securedGateway } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)

void t.test(
  'fragments.txt: refused, or the public route the upstream reads as public',
  async (t) => {
    await runPathCorpus(t, gateway, runtime, 'fragments.txt')
  },
)
