/**
 * Open mode when asked for: the shipped configuration with PORTCULLIS_AUTH_OPEN=true and no
 * credential source serves anonymous requests, as an AgentOS without auth, and says so in its
 * start-up line, its warning, /readyz and /info (where AgentOS's own `auth_mode` stays `none`).
 */
import t from 'tap'
import { Child, childEnv, cliArgs } from '../../helpers/child-process.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import { startRuntime } from '../../helpers/runtime.js'

void t.test('PORTCULLIS_AUTH_OPEN=true: open, and said so everywhere', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = new Child(
    t,
    cliArgs('serve', '--config', 'config/portcullis.yaml'),
    childEnv({
      PORTCULLIS_AUTH_OPEN: 'true',
      PORTCULLIS_UPSTREAM_URL: runtime.url,
      PORTCULLIS_DATA_DIR: await freshEmbeddedDataDir(t),
      PORTCULLIS_PORT: '0',
      PORTCULLIS_ADMIN_PORT: '0',
    }),
  )
  const listening = JSON.parse(
    await gateway.line((line) => line.includes('portcullis listening'), 'the gateway to listen'),
  ) as { auth_mode: string; port: number; admin_port: number }
  t.equal(listening.auth_mode, 'open', 'the start-up line says open')
  const warnings = gateway.stdout
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((record) => record.level === 40)
    .map((record) => record.msg)
  t.same(warnings, [
    'auth.open: true: the gateway runs open (no JWT source, no security key); requests without a credential are forwarded to the upstream, only service-account tokens are checked',
  ])

  const base = `http://127.0.0.1:${listening.port}`
  t.equal((await fetch(`${base}/agents`)).status, 200, 'an anonymous request reaches the runtime')
  const info = (await (await fetch(`${base}/info`)).json()) as Record<string, unknown>
  t.match(info, { auth_mode: 'none', portcullis: { auth: 'open' } })
  const ready = (await (await fetch(`http://127.0.0.1:${listening.admin_port}/readyz`)).json()) as {
    checks: Record<string, string>
  }
  t.equal(
    ready.checks.auth,
    'open (auth.open): requests without a credential are forwarded to the upstream',
  )

  gateway.process.kill('SIGTERM')
  t.equal((await gateway.exit()).code, 0)
})
