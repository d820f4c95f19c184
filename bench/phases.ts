import type { LoadGenerator } from './load/generator.js'
import type {
  AllocationResult,
  BenchOptions,
  InstructionResult,
  FloodResult,
  LatencyResult,
  MemoryResult,
  RevocationResult,
  RsaVerifyResult,
} from './lib/types.js'
import { callgrindAvailable } from './lib/callgrind.js'
import type { HostGate } from './lib/host-gate.js'
import { ALLOCATION_SCENARIOS, measureAllocation } from './scenarios/allocation.js'
import { INSTRUCTION_SCENARIOS, measureInstructions } from './scenarios/instructions.js'
import { unknownServiceTokens } from './scenarios/credentials.js'
import { runFlood } from './scenarios/flood.js'
import { runLatency } from './scenarios/latency.js'
import { runMemory } from './scenarios/memory.js'
import { runRevocation } from './scenarios/revocation.js'
import { runRsaVerify } from './scenarios/rsa-verify.js'
import type { World } from './scenarios/world.js'

export interface PhaseResults {
  readonly latency: LatencyResult | null
  readonly flood: FloodResult | null
  readonly memory: MemoryResult[]
  readonly revocation: RevocationResult | null
  readonly rsaVerify: RsaVerifyResult | null
  readonly allocation: AllocationResult[]
  readonly instructions: InstructionResult[]
}

/** The phases that are not throughput rounds; a failing phase is noted and the run goes on. */
export async function runPhases(
  world: World,
  selected: readonly string[],
  generator: LoadGenerator,
  options: BenchOptions,
  notes: string[],
  log: (line: string) => void,
  gate?: HostGate,
): Promise<PhaseResults> {
  const attempt = async <T>(
    name: string,
    fn: () => Promise<T>,
    selectedBy = name,
  ): Promise<T | null> => {
    if (!selected.includes(selectedBy)) return null
    try {
      return await fn()
    } catch (error) {
      notes.push(`${name} phase failed: ${String(error).split('\n')[0]}`)
      log(`! ${name}: ${String(error)}`)
      return null
    }
  }
  // The timed phases start only once the machine runs at its speed (see lib/host-gate.ts).
  const afterSettling = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    await gate?.settled(what)
    return fn()
  }
  // The bound of the fresh-RS256 scenario (issue 14 target 5), measured in the same run.
  const rsaVerify = await attempt(
    'node:crypto RS256 verify',
    () => afterSettling('the RS256 verify phase', () => runRsaVerify(world, log)),
    'pc-rs256-fresh',
  )
  const latency = await attempt('latency', () =>
    afterSettling('the latency phase', () =>
      runLatency(world, {
        rate: options.latencyRate,
        rounds: options.rounds,
        durationS: options.durationS,
        log,
      }),
    ),
  )
  const flood = await attempt('flood', () =>
    afterSettling('the flood phase', () =>
      runFlood(world, generator, {
        rate: options.floodRate,
        rounds: options.rounds,
        durationS: options.durationS,
        connections: options.connections,
        tokensFile: unknownServiceTokens(world.dir, 50_000),
        log,
      }),
    ),
  )
  const memory: MemoryResult[] = []
  if (selected.includes('memory')) {
    if (world.postgres === null) notes.push('memory (postgres store): PostgreSQL not available')
    const kinds =
      world.postgres === null ? (['embedded'] as const) : (['postgres', 'embedded'] as const)
    for (const kind of kinds) {
      const result = await attempt('memory', () =>
        runMemory(world, kind, options.memoryAccounts, log),
      )
      if (result !== null) memory.push(result)
    }
  }
  const revocation = await attempt('revocation', () =>
    runRevocation(world, options.revocations, log),
  )
  // Each system in a new process of its own; one that fails leaves the others measured.
  const allocation: AllocationResult[] = []
  for (const scenario of selected.includes('allocation') ? ALLOCATION_SCENARIOS : []) {
    const result = await attempt(
      `allocation (${scenario})`,
      () =>
        measureAllocation(world, scenario, {
          connections: options.connections,
          accessLog: options.accessLog,
          log,
        }),
      'allocation',
    )
    if (result !== null) allocation.push(result)
  }
  const instructions: InstructionResult[] = []
  if (selected.includes('instructions') && !callgrindAvailable()) {
    notes.push(
      'instructions phase skipped: valgrind is not installed (apt-get install -y valgrind)',
    )
  } else {
    for (const scenario of selected.includes('instructions') ? INSTRUCTION_SCENARIOS : []) {
      const result = await attempt(
        `instructions (${scenario})`,
        () =>
          measureInstructions(world, scenario, {
            accessLog: options.accessLog,
            quick: options.quick,
            log,
          }),
        'instructions',
      )
      if (result !== null) instructions.push(result)
    }
  }
  return { latency, flood, memory, revocation, rsaVerify, allocation, instructions }
}
