import { DEFAULT_MAX_STEAL_CORES } from './steal.js'
import type { BenchOptions } from './types.js'

export const USAGE = `Usage: npm run bench -- [options]

  --quick              short runs for a smoke check (1 round, 2 s, fewer accounts)
  --only <a,b,…>       only these scenarios/phases (ids, or prefixes ending in *)
  --rounds <n>         rounds of every throughput scenario (default 3)
  --duration <s>       seconds per throughput measurement (default 10)
  --slice <s>          take each measurement in slices of about this many seconds, in turn over
                       the scenarios, and add them up (default: one piece)
  --warmup <s>         seconds of warm-up before a scenario's first round, and before every
                       round when systems are restarted (default 2)
  --no-restart         keep each system in one process for the whole run (default: every
                       system under test but the upstream starts again before each round;
                       off with --cpu-prof, which profiles one process)
  --max-steal <cores>  take a measurement again (up to 3 times, the least stolen kept) when the
                       hypervisor's steal during it exceeded this many cores (default 0.1)
  --connections <n>    connections of the load generator (default 50)
  --access-log on|off  the gateways' access log (default on, as the default config)
  --latency-rate <n>   requests per second of the fixed-rate latency run (default 2000)
  --flood-rate <n>     requests per second of the bad-token flood (default 5000)
  --accounts <n>       cached service accounts of the memory phase (default 100000)
  --revocations <n>    tokens revoked in the revocation phase (default 200)
  --ref <git-ref>      build that commit (cached in node_modules/.cache) instead of the working tree
  --no-build           use the existing dist/ instead of running npm run build
  --docs / --no-docs   rewrite docs/benchmarks.md or not (default: only after a complete run)
  --wait-quiet <cores> before each measurement wait (≤ 60 s) until other processes use at most
                       this many cores (for shared machines)
  --cpu-prof           V8 CPU profiles of the gateways and the Koa floor (bench/results/profiles-<time>/)
  --report <file.json>  print (and with --docs document) a saved result; measures nothing
  --help               this text
`

/** The options of a run given no arguments. */
export const DEFAULT_OPTIONS: BenchOptions = {
  quick: false,
  only: null,
  rounds: 3,
  durationS: 10,
  sliceS: 0,
  warmupS: 2,
  restart: true,
  maxStealCores: DEFAULT_MAX_STEAL_CORES,
  accessLog: true,
  build: true,
  ref: null,
  connections: 50,
  latencyRate: 2_000,
  floodRate: 5_000,
  memoryAccounts: 100_000,
  revocations: 200,
  writeDocs: null,
  cpuProfile: false,
  reportFile: null,
  waitQuietCores: null,
}

const QUICK: Partial<BenchOptions> = {
  rounds: 1,
  durationS: 2,
  warmupS: 2,
  memoryAccounts: 5_000,
  revocations: 20,
}

function positive(name: string, value: string | undefined): number {
  const number = Number(value)
  if (value === undefined || !Number.isFinite(number) || number <= 0) {
    throw new Error(`${name} needs a positive number, got ${value ?? 'nothing'}`)
  }
  return number
}

/** Parses the command line; `--quick` sets short defaults that explicit options still override. */
export function parseArgs(argv: readonly string[]): BenchOptions | 'help' {
  const explicit: { -readonly [K in keyof BenchOptions]?: BenchOptions[K] } = {}
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string
    const [flag, inline] = arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined]
    const value = () => inline ?? argv[++index]
    switch (flag) {
      case '--help':
      case '-h':
        return 'help'
      case '--quick':
        explicit.quick = true
        break
      case '--only':
        explicit.only = (value() ?? '')
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
        if (explicit.only.length === 0) throw new Error('--only needs scenario names')
        break
      case '--rounds':
        explicit.rounds = Math.round(positive('--rounds', value()))
        break
      case '--duration':
        explicit.durationS = positive('--duration', value())
        break
      case '--slice':
        explicit.sliceS = positive('--slice', value())
        break
      case '--warmup':
        explicit.warmupS = Number(value() ?? '0')
        break
      case '--no-restart':
        explicit.restart = false
        break
      case '--max-steal':
        explicit.maxStealCores = Number(value())
        if (!Number.isFinite(explicit.maxStealCores) || explicit.maxStealCores < 0)
          throw new Error('--max-steal needs a number of cores (0 or more)')
        break
      case '--connections':
        explicit.connections = Math.round(positive('--connections', value()))
        break
      case '--access-log': {
        const setting = value()
        if (setting !== 'on' && setting !== 'off') throw new Error('--access-log takes on or off')
        explicit.accessLog = setting === 'on'
        break
      }
      case '--latency-rate':
        explicit.latencyRate = positive('--latency-rate', value())
        break
      case '--flood-rate':
        explicit.floodRate = positive('--flood-rate', value())
        break
      case '--accounts':
        explicit.memoryAccounts = Math.round(positive('--accounts', value()))
        break
      case '--revocations':
        explicit.revocations = Math.round(positive('--revocations', value()))
        break
      case '--ref':
        explicit.ref = value() ?? null
        if (explicit.ref === null) throw new Error('--ref needs a git ref')
        break
      case '--no-build':
        explicit.build = false
        break
      case '--docs':
        explicit.writeDocs = true
        break
      case '--no-docs':
        explicit.writeDocs = false
        break
      case '--report':
        explicit.reportFile = value() ?? null
        if (explicit.reportFile === null) throw new Error('--report needs a results file')
        break
      case '--wait-quiet':
        explicit.waitQuietCores = positive('--wait-quiet', value())
        break
      case '--cpu-prof':
        explicit.cpuProfile = true
        break
      default:
        throw new Error(`unknown option ${arg}\n\n${USAGE}`)
    }
  }
  const base = explicit.quick === true ? { ...DEFAULT_OPTIONS, ...QUICK } : DEFAULT_OPTIONS
  // A profile is of one process: restarting would keep only the last round's.
  const restart = explicit.restart ?? (explicit.cpuProfile === true ? false : base.restart)
  return { ...base, ...explicit, restart }
}
