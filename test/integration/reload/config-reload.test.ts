import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { stringify } from 'yaml'
import { loadConfig } from '../../../src/config/load.js'
import { ConfigReloader } from '../../../src/config-reloader.js'
import { createGateway } from '../../../src/gateway.js'
import { createLogger } from '../../../src/logger.js'
import { Child, childEnv, cliArgs } from '../../helpers/child-process.js'
import { LogCapture } from '../../helpers/log-capture.js'
import { metricValue } from '../../helpers/metrics.js'
import { startRuntime } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'
import type { Teardown } from '../../helpers/gateway.js'

type Sections = Record<string, unknown>

/** A temporary directory, removed at teardown. */
async function tempDir(t: Teardown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-reload-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function writeAtomically(path: string, sections: Sections): Promise<void> {
  await writeFile(`${path}.tmp`, stringify(sections))
  await rename(`${path}.tmp`, path)
}

function baseSections(upstreamUrl: string, extra: Sections = {}): Sections {
  return {
    server: { host: '127.0.0.1', port: 0, admin_host: '127.0.0.1', admin_port: 0 },
    upstream: { url: upstreamUrl },
    service_accounts: { enabled: false },
    ...extra,
  }
}

/** A gateway started from a config file, the way `portcullis serve` starts it. */
async function gatewayFromFile(t: Teardown, path: string) {
  const logs = new LogCapture()
  const logger = createLogger({ level: 'info', destination: logs })
  const gateway = await createGateway(loadConfig(path, { env: {} }), {
    logger,
    collectProcessMetrics: false,
  })
  const running = await gateway.start()
  const reloader = new ConfigReloader(path, gateway, logger, {})
  t.teardown(async () => {
    reloader.stop()
    await gateway.stop()
  })
  const status = async (key: string, path = '/agents'): Promise<number> =>
    (await fetch(`${running.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).status
  return { gateway, running, reloader, logs, status }
}

void t.test(
  'a valid file replaces the running config; an invalid one is refused and the old stays',
  async (t) => {
    const runtime = await startRuntime(t)
    const path = join(await tempDir(t), 'portcullis.yaml')
    await writeAtomically(
      path,
      baseSections(runtime.url, { auth: { security_key: 'key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a' } }),
    )
    const { gateway, running, reloader, logs, status } = await gatewayFromFile(t, path)
    t.equal(await status('key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a'), 200)

    await writeAtomically(
      path,
      baseSections(runtime.url, { auth: { security_key: 'key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a' } }),
    )
    t.match(await reloader.reload('signal'), { outcome: 'applied', restartRequired: [] })
    t.equal(await status('key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a'), 401, 'the old key no longer works')
    t.equal(await status('key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a'), 200, 'the new key does')

    await writeFile(
      path,
      'auth:\n  security_key: key-c-0123456789abcdef0123456789abcd\n  bogus: 1\nserver: { port: nope }\n',
    )
    const refused = await reloader.reload('signal')
    t.match(refused, { outcome: 'invalid' })
    t.same(
      'issues' in refused ? [...refused.issues].sort() : [],
      ['auth.bogus: unknown key', 'server.port: Invalid input: expected number, received string'],
      'every problem is reported',
    )
    t.equal(await status('key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a'), 200, 'the running config stays')
    t.ok(
      logs
        .records()
        .some((record) => record.msg === 'config reload refused; the running configuration stays'),
      'the refusal is logged',
    )
    const metrics = await (await fetch(`${running.adminUrl}/metrics`)).text()
    t.equal(metricValue(metrics, 'portcullis_config_reloads_total', { result: 'applied' }), 1)
    t.equal(metricValue(metrics, 'portcullis_config_reloads_total', { result: 'invalid' }), 1)
    t.equal(gateway.config.auth.security_key, 'key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a')
  },
)

void t.test('a request in flight finishes under the config it started with', async (t) => {
  const runtime = await startRuntime(t)
  const path = join(await tempDir(t), 'portcullis.yaml')
  await writeAtomically(
    path,
    baseSections(runtime.url, { auth: { security_key: 'key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a' } }),
  )
  const { running, reloader, status } = await gatewayFromFile(t, path)
  const slow = fetch(`${running.url}/slow?ms=1500`, {
    headers: { authorization: 'Bearer key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a' },
  })
  await waitFor(() => runtime.started > 0, 'the slow request to reach the upstream')
  await writeAtomically(
    path,
    baseSections(runtime.url, { auth: { security_key: 'key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a' } }),
  )
  t.match(await reloader.reload('signal'), { outcome: 'applied' })
  t.equal((await slow).status, 200, 'admitted before the reload, answered after it')
  t.equal(await status('key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a', '/slow?ms=1'), 401)
})

void t.test('restart-only keys are reported and keep their running values', async (t) => {
  const runtime = await startRuntime(t)
  const other = await startRuntime(t)
  const path = join(await tempDir(t), 'portcullis.yaml')
  await writeAtomically(
    path,
    baseSections(runtime.url, { auth: { security_key: 'key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a' } }),
  )
  const { reloader, status } = await gatewayFromFile(t, path)
  await writeAtomically(
    path,
    baseSections(other.url, { auth: { security_key: 'key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a' } }),
  )
  const result = await reloader.reload('signal')
  t.match(result, { outcome: 'applied', restartRequired: ['upstream.url'] })
  runtime.clear()
  t.equal(await status('key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a'), 200)
  t.equal(runtime.requests.length, 1, 'still the upstream it started with')
  t.equal(other.requests.length, 0)
})

void t.test('a config that fails to build keeps the old generation serving', async (t) => {
  const runtime = await startRuntime(t)
  const path = join(await tempDir(t), 'portcullis.yaml')
  await writeAtomically(
    path,
    baseSections(runtime.url, { auth: { security_key: 'key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a' } }),
  )
  const { reloader, status } = await gatewayFromFile(t, path)
  // Valid YAML and schema, but an HS256 "secret" that is a PEM public key is refused at build.
  const pem =
    '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----'
  await writeAtomically(
    path,
    baseSections(runtime.url, { auth: { algorithm: 'HS256', verification_keys: [pem] } }),
  )
  const result = await reloader.reload('signal')
  t.match(result, { outcome: 'failed' })
  t.equal(
    await status('key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a'),
    200,
    'the previous generation still answers',
  )
})

void t.test('server.watch_config reloads when the file changes', async (t) => {
  const runtime = await startRuntime(t)
  const path = join(await tempDir(t), 'portcullis.yaml')
  const watched = (key: string): Sections =>
    baseSections(runtime.url, { auth: { security_key: key } })
  await writeAtomically(path, watched('key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a'))
  const { reloader, status } = await gatewayFromFile(t, path)
  await reloader.watch()
  await writeAtomically(path, watched('key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a'))
  let current = 0
  for (let attempt = 0; attempt < 150 && current !== 200; attempt++) {
    current = await status('key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a')
    if (current !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(current, 200, 'the new key works without a signal')
})

void t.test('portcullis serve reloads on SIGHUP', async (t) => {
  const runtime = await startRuntime(t)
  const dir = await tempDir(t)
  const path = join(dir, 'portcullis.yaml')
  await writeAtomically(
    path,
    baseSections(runtime.url, { auth: { security_key: 'key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a' } }),
  )
  const child = new Child(t, cliArgs('serve', '--config', path), childEnv())
  const listening = await child.line(
    (line) => line.includes('portcullis listening'),
    'the gateway to listen',
  )
  const { port } = JSON.parse(listening) as { port: number }
  const status = async (key: string): Promise<number> =>
    (
      await fetch(`http://127.0.0.1:${port}/agents`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).status
  t.equal(await status('key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a'), 200)
  await writeAtomically(
    path,
    baseSections(runtime.url, { auth: { security_key: 'key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a' } }),
  )
  child.process.kill('SIGHUP')
  await child.line((line) => line.includes('configuration reloaded'), 'the reload to be logged')
  t.equal(await status('key-b-9c3f7a1e5d0b4f8c2a6e9d3b7f1a'), 200)
  t.equal(await status('key-a-2b6e0c4a8f1d5b9e3c7a0f4d6e8a'), 401)
  child.process.kill('SIGTERM')
  t.match(await child.exit(), { code: 0 })
})
