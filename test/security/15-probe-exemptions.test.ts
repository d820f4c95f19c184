/**
 * Attack class 15 — health and probe exemption abuse (oauth2-proxy GHSA-5hvv-m4w4-gf6v: a
 * User-Agent exemption applied to every path). No User-Agent is special, `/health` is public as
 * an exact path only (not `/health/../x`, `/healthx` or `/health/x`), and `/healthz`, `/readyz` and
 * `/metrics` are served by the admin listener, never on the proxy port.
 * Corpus: probe-exemptions.txt.
 */
import t from 'tap'
import { lintAs } from '../helpers/lint.js'
import { startRuntime } from '../helpers/runtime.js'
import { corpus, INVALID_PATH, refused, securedGateway, send } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime)

void t.test('probe-exemptions.txt: no agent and no prefix opens a route', async (t) => {
  for (const [target = '', agent = '', expected = '', why = ''] of corpus('probe-exemptions.txt')) {
    const sent = await send(gateway, runtime, 'GET', target, [`User-Agent: ${agent}`])
    if (expected === 'public') {
      t.equal(sent.status, 200, why)
      t.equal(sent.upstream[0]?.path, '/health', `${why}: the upstream served /health`)
    } else {
      refused(t, sent, Number(expected), expected === '400' ? INVALID_PATH : undefined, why)
    }
  }
})

void t.test('the probes are on the admin listener, which forwards nothing', async (t) => {
  runtime.clear()
  const healthz = await fetch(`${gateway.adminUrl}/healthz`)
  t.same(await healthz.json(), { status: 'ok' })
  for (const path of ['/agents/a1', '/health/../config', '/config', '/echo/x']) {
    const response = await fetch(`${gateway.adminUrl}${path}`, {
      headers: { 'user-agent': 'kube-probe/1.29' },
    })
    t.equal(response.status, 404, `${path}: not a proxy`)
    await response.arrayBuffer()
  }
  t.equal(runtime.started, 0, 'the upstream saw nothing')
  t.not(gateway.adminPort, gateway.port, 'a port of its own')
})

// `npm run lint` refuses any mention of the User-Agent in src/ (no-restricted-syntax in
// eslint.config.js); this proves the rule catches every spelling, in every layer.
void t.test('no decision in src/ reads the User-Agent: the lint rule', async (t) => {
  const readers = [
    "const agent = req.headers['user-agent']",
    'const agent = headers.userAgent',
    "const agent = ctx.get('User-Agent')",
    'const agent = `${prefix}user_agent`',
    'class Probe { #userAgent = 1 }',
  ]
  for (const file of [
    'src/http/middleware/authenticate.ts',
    'src/auth/pipeline.ts',
    'src/errors.ts',
  ]) {
    for (const code of readers) {
      t.match(await lintAs(file, code), [/User-Agent/], `${file}: ${code}`)
    }
    t.same(
      await lintAs(file, "const host = req.headers['host']"),
      [],
      `${file}: other headers pass`,
    )
  }
})
