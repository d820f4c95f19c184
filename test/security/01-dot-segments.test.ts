/**
 * Attack class 1 — dot-segment traversal (`/public/../admin`, `/./`, `..;/`). Envoy CVE-2019-9901,
 * Traefik CVE-2025-32431: every protected route reached through a public one is refused with 400
 * before any authentication decision. Corpus: test/fixtures/attacks/dot-segments.txt, tried
 * without a credential as GET, as an OPTIONS preflight and as a WebSocket upgrade; see
 * runPathCorpus for the oracle.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { securedGateway } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)

void t.test(
  'dot-segments.txt: refused, or the public route the upstream reads as public',
  async (t) => {
    await runPathCorpus(t, gateway, runtime, 'dot-segments.txt')
  },
)
