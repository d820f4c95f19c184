/**
 * Attack class 7 — case variance (`/ADMIN`, `/Admin`). ShieldCortex#474 (Express matched routes
 * case-insensitively while the auth prefix check did not), istio#38139/#40541. Portcullis matches
 * case-sensitively, as Starlette routes: no case variant of a public route is public, and a variant
 * of a protected route is forwarded with its case intact, so the upstream cannot serve the
 * protected route for it. Corpus: test/fixtures/attacks/case-variance.txt.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { bearer, corpus, jwt, refused, securedGateway, send, upgrade } from './harness.js'
import { runPathCorpus } from './path-corpus.js'

const runtime = await startRuntime(t)
const open = await securedGateway(t, runtime)
const strict = await securedGateway(t, runtime, { auth: { deny_unmapped_routes: true } })
// Authenticated, but with no scope for any route the corpus names.
const outsider = await jwt(['teams:t9:read'], { sub: 'mallory' })
const a1Reader = await jwt(['agents:a1:read'], { sub: 'alice' })

void t.test('case-variance.txt without a credential: 401, never public', async (t) => {
  await runPathCorpus(t, open, runtime, 'case-variance.txt')
})

void t.test(
  'a case variant is another route: forwarded with its case, never as the original',
  async (t) => {
    for (const [target = ''] of corpus('case-variance.txt')) {
      const sent = await send(open, runtime, 'GET', target, [bearer(outsider)])
      // Unmapped, so allowed without deny_unmapped_routes; what matters is what the upstream reads.
      t.equal(sent.upstream.length, 1, `${target}: forwarded`)
      t.equal(sent.upstream[0]?.path, decodeURIComponent(target), `${target}: with its case`)
      t.equal(sent.status, 404, `${target}: the case-sensitive upstream has no such route`)
      refused(
        t,
        await send(strict, runtime, 'GET', target, [bearer(outsider)]),
        403,
        undefined,
        `${target} (deny_unmapped_routes)`,
      )
    }
  },
)

void t.test('per-resource grants compare ids exactly', async (t) => {
  t.equal((await send(open, runtime, 'GET', '/agents/a1', [bearer(a1Reader)])).status, 200)
  for (const id of ['A1', '%20a1', 'a%31x', '%41%31', '%C2%A0a1']) {
    refused(
      t,
      await send(open, runtime, 'GET', `/agents/${id}`, [bearer(a1Reader)]),
      403,
      undefined,
      id,
    )
  }
  // A trailing one is refused before any grant is looked at (PATH-2).
  for (const id of ['a1%20', 'a1%C2%A0']) {
    const sent = await send(open, runtime, 'GET', `/agents/${id}`, [bearer(a1Reader)])
    refused(t, sent, 400, 'Invalid request path', id)
  }
})

void t.test(
  'WebSocket: a case variant of a mapped route is unmapped, never the mapped one',
  async (t) => {
    const reader = await jwt(['workflows:read'], { sub: 'alice' })
    t.equal((await upgrade(open, runtime, '/workflows/ws', [bearer(reader)])).status, 101)
    refused(t, await upgrade(strict, runtime, '/WORKFLOWS/ws', [bearer(outsider)]), 403)
    const variant = await upgrade(open, runtime, '/Workflows/ws', [bearer(outsider)])
    t.not(variant.status, 101, 'the upstream has no such socket')
    t.equal(variant.sockets.length, 0)
  },
)
