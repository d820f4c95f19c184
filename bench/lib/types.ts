/** What one load-generator run measured. Latencies in microseconds. */
export interface LoadResult {
  readonly requests: number
  readonly durationS: number
  /** Responses whose status was not the expected one (wrk: not 2xx/3xx). */
  readonly unexpected: number
  /** Socket errors and timeouts. */
  readonly errors: number
  readonly p50Us: number
  readonly p99Us: number
  /** Count per HTTP status, when the generator knows them. */
  readonly statuses?: Readonly<Record<string, number>>
}

/** CPU seconds used during a measurement, by whom. */
export interface CpuUsage {
  /** The system under test (its processes and their children). */
  readonly sutS: number
  readonly upstreamS: number
  readonly generatorS: number
  /** Other processes of the harness (idle gateways, the harness itself). */
  readonly harnessS: number
  /** Processes the harness started outside its tree: PostgreSQL. */
  readonly outsideS: number
  /** CPU the rest of the machine used: other people's processes. */
  readonly foreignS: number
  readonly stealS: number
  readonly wallS: number
}

export interface Disturbance {
  readonly loadBefore: number
  readonly loadAfter: number
  /** Average cores used by processes outside the harness during the measurement. */
  readonly foreignCores: number
  readonly stealCores: number
  /** Seconds spent waiting for a quiet machine first (--wait-quiet). */
  readonly waitedS: number
}

/** One round of one scenario. */
export interface Sample {
  readonly scenario: string
  readonly round: number
  readonly load: LoadResult
  readonly cpu: CpuUsage
  readonly disturbance: Disturbance
  readonly rps: number
  /** SUT CPU time per request, microseconds. */
  readonly cpuUsPerRequest: number
}

/** Medians over the rounds of one scenario. */
export interface ScenarioSummary {
  readonly scenario: string
  readonly label: string
  readonly rounds: number
  readonly rps: number
  readonly p50Us: number
  readonly p99Us: number
  readonly cpuUsPerRequest: number
  readonly unexpected: number
  readonly errors: number
  readonly foreignCores: number
  /** Cores the system under test kept busy (1.0: its core was saturated). */
  readonly sutCores: number
  /** Cores the load generator kept busy. */
  readonly generatorCores: number
  /** rps ÷ nginx's rps in the same run, when nginx ran. */
  readonly vsNginx: number | null
  /** The status every answer should have (200 unless the scenario says otherwise). */
  readonly expectStatus?: number
  /** Answers per status over the rounds, when the generator counted them. */
  readonly statuses?: Readonly<Record<string, number>>
}

export interface SkippedScenario {
  readonly scenario: string
  readonly reason: string
}

/** One path of the latency phase: medians over the rounds (µs), requests summed. */
export interface LatencyPath {
  readonly p50Us: number
  readonly p99Us: number
  readonly requests: number
}

export interface LatencyResult {
  readonly rate: number
  readonly direct: LatencyPath
  readonly gateway: LatencyPath
  /** Through the gateway, minus direct. */
  readonly addedP50Us: number
  readonly addedP99Us: number
  /**
   * Through the Koa floor (the same relay as Koa middleware, no logic), at the same rate; absent
   * from reports before it was measured, and when it failed to start.
   */
  readonly koaFloor?: LatencyPath
  /** Through the Koa floor, minus direct. */
  readonly koaFloorAddedP50Us?: number
  readonly koaFloorAddedP99Us?: number
  readonly foreignCores: number
}

/** A plain node:crypto RS256 verify (RSA-2048, KeyObject prepared once), on the SUT core. */
export interface RsaVerifyResult {
  /** CPU time per verify, median over the trials (µs). */
  readonly cpuUsPerVerify: number
  readonly wallUsPerVerify: number
  readonly iterations: number
  readonly trials: number
}

/**
 * How fast the machine was at one point of the throughput measurements: a plain node:crypto RS256
 * verify on the system-under-test CPU, taken before each round (each slice pass with `--slice`).
 * Steal and other processes' CPU read zero when the host under the virtual machine is busy; this
 * reading does not.
 */
export interface HostSpeedReading {
  readonly round: number
  readonly slice: number
  /** Before the pass (µs of CPU a plain verify). */
  readonly cpuUsPerVerify: number
  /** After the pass; absent from reports before the host gate. */
  readonly afterUsPerVerify?: number
  /** How many times the pass was measured (the machine slowed during the others). */
  readonly attempts?: number
}

export interface FloodResult {
  readonly aloneRps: number
  readonly underFloodRps: number
  /** 1 − underFlood ÷ alone. */
  readonly drop: number
  readonly floodRate: number
  readonly floodAchievedRps: number
  readonly floodStatuses: Readonly<Record<string, number>>
  readonly foreignCores: number
  /** The gateway's CPU per good request, good clients alone (µs); absent from older reports. */
  readonly goodCpuUs?: number
  /**
   * The gateway's CPU per flood request in place (µs): its CPU under the flood less the good
   * requests at their cost alone, per flood request meanwhile. Absent from older reports.
   */
  readonly floodCpuUs?: number
  /** Cores of the gateway busy under the flood: below 1, the gateway was not what limited. */
  readonly busyUnderFlood?: number
}

/** The embedded store's first start, on an empty data directory (MB). */
export interface FirstStartMemory {
  /** What a container must hold: the gateway and its initialising child together, at most. */
  readonly peakMb: number
  /** The gateway's own peak (VmHWM) and its initialising child's (its maxRSS, as logged). */
  readonly gatewayPeakMb: number
  readonly childPeakMb: number
  /** RSS once the start has settled. */
  readonly rssMb: number
  /** Seconds waited for it to settle (bench/lib/settle.ts); absent from older reports. */
  readonly rssWaitS?: number
}

export interface MemoryResult {
  readonly store: string
  readonly accounts: number
  /**
   * RSS once the start has settled (the accounts in the store, none verified yet). Reports from
   * before issue 14 read it two seconds after readiness.
   */
  readonly rssBeforeMb: number
  /**
   * Seconds waited after the start, and after the tokens, until the memory had settled
   * (bench/lib/settle.ts); absent from older reports.
   */
  readonly rssBeforeWaitS?: number
  /** Peak RSS (VmHWM) of that start, before any token was verified. */
  readonly startPeakMb?: number
  /** RSS once settled after each token was verified once. */
  readonly rssAfterMb: number
  readonly rssAfterWaitS?: number
  readonly peakMb: number
  /** V8 heap in use and external (Buffer) memory after warming, from the admin /metrics. */
  readonly heapUsedMb: number
  readonly externalMb: number
  /** Growth of the V8 heap after full garbage collections, per cached account (bytes). */
  readonly heapPerAccountBytes?: number | null
  /** The embedded store only: its first start, before the accounts were inserted. */
  readonly firstStart?: FirstStartMemory | null
  readonly warmSeconds: number
  readonly failures: number
}

/** One site of a sampled heap profile: a function and where it is (`file:line`). */
export interface AllocationSite {
  readonly functionName: string
  readonly where: string
  readonly bytesPerRequest: number
}

/**
 * Bytes one system allocated per request under load: V8's sampling heap profiler, objects
 * collected since included, over the requests answered meanwhile.
 */
export interface InstructionResult {
  /** The throughput scenario counted the same way: koa-floor, pc-excluded, pc-sa-warm. */
  readonly scenario: string
  readonly label: string
  readonly path: string
  /** Requests sent before counting started. */
  readonly warmup: number
  /** Requests of each counted window. */
  readonly windowRequests: number
  /** Instructions a request of each window, in order. */
  readonly windows: readonly number[]
  /** The lowest window's: what a request costs when no collection or compilation falls in it. */
  readonly perRequest: number
}

export interface AllocationResult {
  /** The throughput scenario measured the same way: koa-floor, pc-excluded, pc-sa-warm. */
  readonly scenario: string
  readonly label: string
  readonly path: string
  /** Requests answered while the profiler sampled. */
  readonly requests: number
  readonly sampledS: number
  readonly bytesPerRequest: number
  /** The sites that allocated most, largest first. */
  readonly topSites: readonly AllocationSite[]
  /** Answers with another status than 200, and socket errors, over the whole load run. */
  readonly failures: number
}

export interface RevocationResult {
  readonly tokens: number
  /** From the revoke request's start to replica B's first refusal. */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** From replica A's answer to replica B's first refusal. */
  readonly afterAckP99Ms: number
  readonly timedOut: number
}

export interface MachineInfo {
  readonly cpuModel: string
  readonly cores: number
  readonly memoryGb: number
  readonly kernel: string
  readonly node: string
  readonly tools: Readonly<Record<string, string | null>>
  readonly loadAtStart: readonly number[]
  readonly loadAtEnd: readonly number[]
}

export interface BenchOptions {
  readonly quick: boolean
  readonly only: readonly string[] | null
  readonly rounds: number
  readonly durationS: number
  /** Throughput measurements are taken in slices of about this long; 0 (and absent in older reports): one piece. */
  readonly sliceS: number
  readonly warmupS: number
  /**
   * Every system under test in a new process each round (warmed up again); absent in older
   * reports, whose systems ran in one process for the whole run.
   */
  readonly restart?: boolean
  /**
   * A throughput measurement during which the hypervisor's steal exceeded this many cores is
   * taken again (up to 3 times, the least stolen kept); absent in older reports (never retaken).
   */
  readonly maxStealCores?: number
  readonly accessLog: boolean
  readonly build: boolean
  /** Build this git ref instead of the working tree. */
  readonly ref: string | null
  readonly connections: number
  readonly latencyRate: number
  readonly floodRate: number
  readonly memoryAccounts: number
  readonly revocations: number
  /** null: only a complete run (no --quick, --only or --cpu-prof) rewrites docs/benchmarks.md. */
  readonly writeDocs: boolean | null
  readonly cpuProfile: boolean
  /** Wait before each measurement until others use at most this many cores (null: do not wait). */
  readonly waitQuietCores: number | null
  /** Re-print (and re-document) a saved result instead of measuring. */
  readonly reportFile: string | null
}

export interface BenchReport {
  readonly startedAt: string
  readonly finishedAt: string
  readonly options: BenchOptions
  readonly machine: MachineInfo
  readonly generator: string
  readonly pinning: string
  /** Which sources the measured gateway was built from. */
  readonly build: string
  readonly summaries: readonly ScenarioSummary[]
  readonly samples: readonly Sample[]
  readonly skipped: readonly SkippedScenario[]
  readonly latency: LatencyResult | null
  readonly flood: FloodResult | null
  readonly memory: readonly MemoryResult[]
  readonly revocation: RevocationResult | null
  /** Measured with the fresh-RS256 scenario; absent from reports before issue 14's targets 1–7. */
  readonly rsaVerify?: RsaVerifyResult | null
  /** The machine's speed during the throughput measurements; absent from earlier reports. */
  readonly hostSpeed?: readonly HostSpeedReading[]
  /** Allocated bytes per request; absent from reports before the allocation phase. */
  readonly allocation?: readonly AllocationResult[]
  /** Instructions per request (callgrind); absent from reports before the instructions phase. */
  readonly instructions?: readonly InstructionResult[]
  readonly notes: readonly string[]
}
