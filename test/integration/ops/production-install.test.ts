import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import { childEnv, PROJECT_ROOT } from '../../helpers/child-process.js'
import { closedPort, startRuntime } from '../../helpers/runtime.js'
import { waitFor, within } from '../../helpers/wait.js'
import {
  buildContext,
  buildStage,
  parseDockerfile,
  run,
  StageBuild,
  temporaryDir,
} from './dockerfile.js'

/**
 * The Dockerfile cannot be built on these machines, so this test does what it does: the build
 * stage (npm ci with dev dependencies, tsc) and the runtime stage (production dependencies only,
 * dist/ and the config copied over) in temporary directories, then starts the runtime stage's
 * ENTRYPOINT + CMD and runs its HEALTHCHECK. Slow (two npm installs, from npm's cache) but
 * required: it is what keeps the image working.
 */
t.setTimeout(240_000)

const SECURITY_KEY = 'production-install-test-key-0a4e8c2f'
/** The build argument `docker build --build-arg PORTCULLIS_COMMIT=…` passes (not this checkout's). */
const COMMIT = '0123456789abcdef0123456789abcdef01234567'
const VERSION = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version

/** Every file of a tree with its size and modification time, to prove nothing was written. */
function snapshot(root: string, skip: string): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry)
      if (path === skip) continue
      const stat = statSync(path)
      if (stat.isDirectory()) walk(path)
      else files.set(relative(root, path), `${stat.size}:${stat.mtimeMs}`)
    }
  }
  walk(root)
  return files
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.once('exit', (code) => resolve(code))
  })
}

void t.test('the Dockerfile’s commands build and run the gateway', async (t) => {
  const stages = parseDockerfile(readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8'))
  t.equal(stages.length, 2, 'multi-stage: build, then run')
  const [buildSpec, runtimeSpec] = stages as [(typeof stages)[0], (typeof stages)[0]]
  t.equal(buildSpec.name, 'build', 'the first stage is named build')
  t.equal(buildSpec.base, runtimeSpec.base, 'both stages on the same small base')
  t.match(runtimeSpec.base, /^node:20[-.\w]*-slim$/, 'a slim Node 20 base')

  const context = buildContext(t)
  t.notOk(existsSync(join(context, 'node_modules')), 'the context has no node_modules')
  t.notOk(existsSync(join(context, 'test')), 'nor the tests')
  t.notOk(existsSync(join(context, '.git')), 'nor .git: the commit comes from the build argument')

  const build = new StageBuild(temporaryDir(t, 'portcullis-build-stage-'))
  const runtime = new StageBuild(temporaryDir(t, 'portcullis-runtime-stage-'))
  const built = new Map([['build', build]])
  // BuildKit builds the stages side by side until the runtime stage needs the build's dist/.
  const copyFromBuild = runtimeSpec.instructions.findIndex((i) => i.args.startsWith('--from=build'))
  const before = { ...runtimeSpec, instructions: runtimeSpec.instructions.slice(0, copyFromBuild) }
  const after = { ...runtimeSpec, instructions: runtimeSpec.instructions.slice(copyFromBuild) }
  await Promise.all([
    buildStage(buildSpec, build, context, built, { PORTCULLIS_COMMIT: COMMIT }),
    buildStage(before, runtime, context, built),
  ])
  t.ok(existsSync(build.path('dist/main.js')), 'the build stage produced dist/main.js')
  await buildStage(after, runtime, context, built)

  t.same(
    readdirSync(runtime.path('.')).sort(),
    ['config', 'dist', 'node_modules', 'package-lock.json', 'package.json', 'store-template'],
    'the runtime stage holds only what it needs',
  )
  for (const dev of ['typescript', 'tap', 'eslint', 'tsx'])
    t.notOk(existsSync(runtime.path(`node_modules/${dev}`)), `no dev dependency ${dev}`)
  t.ok(
    existsSync(runtime.path('node_modules/@electric-sql/pglite')),
    'the embedded store is installed',
  )
  t.equal(runtime.user, 'node', 'runs as the non-root node user')
  t.same(runtime.exposed, [8080, 9090], 'EXPOSE the proxy and admin ports')
  t.equal(runtime.entrypoint[0], 'node', 'node is PID 1: signals reach it with no shell between')
  t.comment(`not carried out: ${runtime.skipped.join('; ')}`)

  const upstream = await startRuntime(t)
  const [port, adminPort] = [await closedPort(), await closedPort()]
  const dataDir = runtime.path(runtime.env.PORTCULLIS_DATA_DIR ?? '/missing')
  t.ok(existsSync(dataDir), `PORTCULLIS_DATA_DIR (${runtime.env.PORTCULLIS_DATA_DIR}) was created`)
  const env = {
    ...childEnv(),
    ...runtime.env,
    PORTCULLIS_DATA_DIR: dataDir,
    OS_SECURITY_KEY: SECURITY_KEY,
    PORTCULLIS_UPSTREAM_URL: upstream.url,
    PORTCULLIS_PORT: String(port),
    PORTCULLIS_ADMIN_PORT: String(adminPort),
  }
  const resolve = (argv: string[]): string[] =>
    argv.map((arg, i) => (i === 0 && arg === 'node' ? process.execPath : arg))
  const [command, ...args] = resolve([...runtime.entrypoint, ...runtime.cmd]) as [
    string,
    ...string[],
  ]
  const original = snapshot(runtime.path('.'), dataDir)
  const gateway = spawn(command, args, {
    cwd: runtime.path(runtime.workdir),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  gateway.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  gateway.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  t.teardown(() => {
    if (gateway.exitCode === null) gateway.kill('SIGKILL')
  })

  const admin = `http://127.0.0.1:${adminPort}`
  const proxy = `http://127.0.0.1:${port}`
  let healthy = false
  await waitFor(
    () => {
      void fetch(`${admin}/healthz`).then(
        (response) => (healthy = response.status === 200),
        () => undefined,
      )
      return healthy || gateway.exitCode !== null
    },
    'the gateway to answer /healthz',
    30_000,
    100,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${output}`)
  })
  t.ok(healthy, `/healthz 200 (output: ${output.slice(0, 200)})`)
  t.equal((await fetch(`${admin}/readyz`)).status, 200, '/readyz: upstream and store reachable')
  t.match(
    await (await fetch(`${admin}/metrics`)).text(),
    `portcullis_build_info{version="${VERSION}",commit="${COMMIT}",node_version="${process.version}"} 1`,
    'portcullis_build_info names the commit the image was built from',
  )

  const auth = { authorization: `Bearer ${SECURITY_KEY}` }
  t.equal((await fetch(`${proxy}/agents`)).status, 401, 'no credential: refused')
  const agents = await fetch(`${proxy}/agents`, { headers: auth })
  t.equal(agents.status, 200, 'a proxied request works')
  t.ok(Array.isArray(await agents.json()), 'the runtime’s agents list')
  const minted = await fetch(`${proxy}/service-accounts`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'image-check' }),
  })
  t.equal(minted.status, 201, 'the embedded store works in the production install')
  const { token } = (await minted.json()) as { token: string }
  t.equal(
    (await fetch(`${proxy}/sessions`, { headers: { authorization: `Bearer ${token}` } })).status,
    200,
    'the minted token works',
  )

  const healthcheck = resolve(runtime.healthcheck ?? [])
  t.ok(healthcheck.length > 0, 'the Dockerfile has a HEALTHCHECK')
  const probe = (): Promise<number | null> => {
    const child = spawn(healthcheck[0] as string, healthcheck.slice(1), {
      cwd: runtime.path(runtime.workdir),
      env,
    })
    return within(exited(child), 'the HEALTHCHECK command', 10_000)
  }
  t.equal(await probe(), 0, 'HEALTHCHECK passes against the running gateway')

  gateway.kill('SIGTERM')
  t.equal(
    await within(exited(gateway), 'the gateway to stop on SIGTERM', 20_000),
    0,
    'SIGTERM: exit 0',
  )
  t.match(output, /shutting down/, 'a graceful shutdown')
  t.match(
    output,
    /"from":"template"[^\n]*embedded store initialised/,
    'the first start unpacked the shipped template (no initdb)',
  )
  t.not(await probe(), 0, 'HEALTHCHECK fails once the gateway is gone')
  t.same(
    [...snapshot(runtime.path('.'), dataDir)].filter(
      ([path, stamp]) => original.get(path) !== stamp,
    ),
    [],
    'nothing outside PORTCULLIS_DATA_DIR was written (read-only root filesystem)',
  )
  t.ok(readdirSync(dataDir).length > 0, 'the embedded store wrote its data dir')
  await run(
    process.execPath,
    ['dist/main.js', 'config', 'check', '--config', 'config/portcullis.yaml'],
    runtime.path(runtime.workdir),
    env,
  )
  t.pass('`portcullis config check` runs from the production install')
  const version = execFileSync(process.execPath, ['dist/main.js', '--version'], {
    cwd: runtime.path(runtime.workdir),
    env,
    encoding: 'utf8',
  })
  t.equal(
    version,
    `${VERSION} (commit ${COMMIT}, Node.js ${process.version})\n`,
    '--version names the commit without git',
  )
})
