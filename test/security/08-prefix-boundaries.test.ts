/**
 * Attack class 8 — prefix boundaries and trailing slashes (`/admin` vs `/admin/` vs `/adminx`).
 * litellm-rs#392, adminjs-expressjs#89, Tyk strict routes: public routes and webhook prefixes
 * match whole segments. Corpus: test/fixtures/attacks/prefix-boundaries.txt, tried without a
 * credential as GET, as an OPTIONS preflight and as a WebSocket upgrade; see runPathCorpus for the
 * oracle.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { PUBLIC_ROUTES, securedGateway } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  interfaces: { webhooks: { prefixes: ['/slack'] } },
})

void t.test(
  'prefix-boundaries.txt: refused, or the public route the upstream reads as public',
  async (t) => {
    await runPathCorpus(t, gateway, runtime, 'prefix-boundaries.txt', [
      '/',
      ...PUBLIC_ROUTES,
      '/docs/oauth2-redirect',
      '/slack/events',
    ])
  },
)
