/**
 * `npm run bench`: the benchmark harness of issue 8. See `npm run bench -- --help` and
 * docs/benchmarks.md (written from the last full run).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs, USAGE } from './lib/args.js'
import { DEFAULT_MAX_STEAL_CORES } from './lib/steal.js'
import { cleanup, installCleanup, useTaskset } from './lib/cleanup.js'
import { describeMachine, detectTools } from './lib/machine.js'
import { waitForQuiet } from './lib/measure.js'
import { choosePinning } from './lib/pin.js'
import { autocannonGenerator } from './load/autocannon.js'
import { wrkGenerator } from './load/wrk.js'
import { finish, republish, type Collected } from './finish.js'
import { selectIds, systemsNeeded, THROUGHPUT_SCENARIOS } from './scenarios/catalog.js'
import { runPhases } from './phases.js'
import { runThroughput } from './scenarios/throughput.js'
import { HOST_CHECK, runRsaVerify } from './scenarios/rsa-verify.js'
import { HostGate } from './lib/host-gate.js'
import { buildWorld } from './scenarios/world.js'
import { PROJECT_ROOT, useGatewayBuild } from './systems/gateway.js'
import { buildGateway } from './lib/build.js'

const log = (line: string) => process.stderr.write(`${line}\n`)

async function main(): Promise<void> {
  const parsed = parseArgs(process.argv.slice(2))
  if (parsed === 'help') {
    process.stdout.write(USAGE)
    return
  }
  if (parsed.reportFile !== null) {
    republish(parsed.reportFile, parsed.writeDocs === true, log)
    return
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  // Quick, partial or profiled numbers never replace the documented complete run by default.
  const complete = !parsed.quick && parsed.only === null && !parsed.cpuProfile
  const options = { ...parsed, writeDocs: parsed.writeDocs ?? complete }
  installCleanup()
  waitForQuiet(
    options.waitQuietCores === null ? null : { maxCores: options.waitQuietCores, maxWaitS: 60 },
  )
  const tools = detectTools()
  const machine = describeMachine(tools)
  const pinning = choosePinning(tools.taskset, machine.cores)
  useTaskset(pinning.taskset)
  let selected = selectIds(options.only)
  const notes: string[] = []
  const twins = ['pc-sa-warm-nolog', 'pc-sa-warm-log']
  if (!options.accessLog && selected.some((id) => twins.includes(id))) {
    selected = selected.filter((id) => !twins.includes(id))
    notes.push(
      'Access log off everywhere (--access-log off): the access-log twin scenarios were not run.',
    )
  }
  const build = options.build
    ? buildGateway(PROJECT_ROOT, options.ref, log)
    : { main: join(PROJECT_ROOT, 'dist', 'main.js'), description: 'existing dist/ (--no-build)' }
  if (!existsSync(build.main)) throw new Error(`${build.main} is missing: drop --no-build`)
  useGatewayBuild(build.main)
  if (tools.wrk === null)
    notes.push(
      'wrk is not installed (apt-get install wrk): autocannon generated the load; its latencies have millisecond resolution.',
    )
  const startedAt = new Date().toISOString()
  const profileDir = options.cpuProfile
    ? join(PROJECT_ROOT, 'bench', 'results', `profiles-${stamp}`)
    : undefined
  const needPostgres = ['memory', 'revocation'].some((id) => selected.includes(id))
  const world = await buildWorld(systemsNeeded(selected), needPostgres, tools, pinning, {
    accessLog: options.accessLog,
    cpuProfileDir: profileDir,
    log,
  })
  // wrk's Lua scripts go to the run's temp dir.
  const gen =
    tools.wrk !== null
      ? wrkGenerator(tools.wrk, world.dir, pinning.generator)
      : autocannonGenerator(pinning.generator)
  const scenarios = THROUGHPUT_SCENARIOS.filter((s) => selected.includes(s.id))
  log(
    `measuring ${scenarios.length} scenarios × ${options.rounds} rounds × ${options.durationS} s with ${gen.name}; ${pinning.description}`,
  )
  const hostCheck = async () => {
    const reading = await runRsaVerify(world, (line) => log(`host check: ${line}`), HOST_CHECK)
    return reading.cpuUsPerVerify
  }
  // A smoke check (`--quick`) takes the readings but waits for nothing.
  const gate = world.jwt.has('RS256')
    ? new HostGate({ read: hostCheck, log, patient: options.quick !== true })
    : undefined
  const { samples, skipped, hostSpeed } = await runThroughput(world, scenarios, gen, {
    rounds: options.rounds,
    durationS: options.durationS,
    sliceS: options.sliceS,
    warmupS: options.warmupS,
    restart: options.restart === true,
    maxStealCores: options.maxStealCores ?? DEFAULT_MAX_STEAL_CORES,
    connections: options.connections,
    gate,
    log,
  })
  const phases = await runPhases(world, selected, gen, options, notes, log, gate)
  for (const system of world.systems.values()) await system.stop()
  const collected: Collected = {
    stamp,
    startedAt,
    options,
    machine,
    generator: gen.name,
    pinning: pinning.description,
    build: build.description,
    samples,
    skipped,
    hostSpeed,
    notes,
    profileDir,
    ...phases,
  }
  await cleanup()
  finish(collected, log)
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    await cleanup()
    process.exit(1)
  },
)
