/**
 * The default deployment fits its own memory limit: the gateway with the embedded store (the
 * chart's default) is started for real on an empty data directory (the shipped template unpacked
 * by a child process) and again on existing data, and the peak resident memory of each start,
 * with the margin below, must stay under the chart's default `resources.limits.memory`. Measured
 * through /proc (Linux), as the kernel's memory cgroup counts it, on the gateway built as the
 * image runs it (tsx alone adds about 100 MiB to each process).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { Child, childEnv, cliArgs, PROJECT_ROOT } from '../../helpers/child-process.js'
import type { Teardown } from '../../helpers/gateway.js'

/** The limit must exceed the measured peak by at least this factor. */
const MARGIN = 1.25
const MIB = 1024 * 1024

function chartMemoryLimitBytes(): number {
  const values = parse(readFileSync(join(PROJECT_ROOT, 'helm/portcullis/values.yaml'), 'utf8')) as {
    resources: { limits: { memory: string } }
  }
  const text = values.resources.limits.memory
  const match = /^(\d+)(Mi|Gi)$/.exec(text)
  if (match === null) throw new Error(`unexpected memory limit ${text}`)
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 * MIB : MIB)
}

/** The process's peak resident memory so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024
}

/**
 * `portcullis serve --config config/portcullis.yaml` (the shipped file) on the embedded store,
 * built (dist/ beside store-template/, node_modules/ and package.json, as in the image's /app);
 * waits until it listens, then stops it.
 */
async function startOnce(t: Teardown, dataDir: string) {
  const child = new Child(
    t,
    cliArgs('serve', '--config', 'config/portcullis.yaml'),
    childEnv({
      OS_SECURITY_KEY: 'a-test-key-8f2c6a0e4b9d3f7a1c5e9b',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_PORT: '0',
      PORTCULLIS_ADMIN_PORT: '0',
    }),
  )
  await child.line((line) => line.includes('portcullis listening'), 'the gateway', 120_000)
  const gateway = peakRss(child.process.pid ?? 0)
  child.process.kill('SIGTERM')
  await child.exit()
  const initialised = child.stdout
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((record) => record.msg === 'embedded store initialised (files private to this user)')
  const together =
    initialised === undefined
      ? 0
      : Number(initialised.gateway_rss_bytes) + Number(initialised.peak_rss_bytes)
  return { gateway, together, peak: Math.max(gateway, together), initialised }
}

const mib = (bytes: number): string => `${Math.round(bytes / MIB)} MiB`

void t.test(
  'first start and restart with the embedded store fit the chart’s memory limit',
  { skip: process.platform === 'linux' ? false : 'peak RSS is read from /proc' },
  async (t) => {
    const limit = chartMemoryLimitBytes()
    const root = mkdtempSync(join(tmpdir(), 'portcullis-memory-'))
    t.teardown(() => rmSync(root, { recursive: true, force: true }))
    const dataDir = join(root, 'db')

    const first = await startOnce(t, dataDir)
    t.match(first.initialised, { from: 'template' }, 'the first start unpacked the template')
    t.comment(
      `first start: gateway peak ${mib(first.gateway)}, gateway + initialising child ${mib(first.together)}`,
    )
    const restart = await startOnce(t, dataDir)
    t.notOk(restart.initialised, 'a restart finds the data')
    t.comment(`restart: gateway peak ${mib(restart.gateway)}; chart limit ${mib(limit)}`)

    t.ok(
      first.peak * MARGIN <= limit,
      `first start: ${mib(first.peak)} × ${MARGIN} within the limit of ${mib(limit)}`,
    )
    t.ok(
      restart.peak * MARGIN <= limit,
      `restart: ${mib(restart.peak)} × ${MARGIN} within the limit of ${mib(limit)}`,
    )
    // Initialising happens in the child: the gateway's own first start costs what a restart does.
    t.ok(
      first.gateway <= restart.gateway * MARGIN,
      `the gateway's first start (${mib(first.gateway)}) within ${MARGIN} × a restart's (${mib(restart.gateway)})`,
    )
  },
)
