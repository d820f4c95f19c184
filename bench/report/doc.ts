import { LATENCY_CONNECTIONS } from '../scenarios/catalog.js'
import { THROTTLED_ADDRESS } from '../scenarios/credentials.js'
import { WARM_ACCOUNTS } from '../scenarios/memory.js'
import { SETTLE_RULE } from '../lib/settle.js'
import { sliceCount } from '../lib/slices.js'
import { STEAL_ATTEMPTS } from '../lib/steal.js'
import { median } from '../lib/stats.js'
import type { BenchOptions, BenchReport, LatencyPath, LatencyResult } from '../lib/types.js'
import { allocationMethod, allocationSection } from './allocation.js'
import { instructionsMethod, instructionsSection } from './instructions.js'
import { analysisOf, HOT_PATH_CHANGES } from './analysis.js'
import { EXPECTED_SHARE } from './cpu-targets.js'
import { limitNote } from './doc-notes.js'
import { hostSpeedOf } from './host-speed.js'
import { disturbedSamples, koaFloorOf } from './summarize.js'
import {
  markdownTable,
  ms,
  skippedLines,
  TARGET_HEADER,
  targetRows,
  throughputTable,
} from './table.js'
import type { TargetResult } from './targets.js'

/** The hypervisor's steal during the measurements, and what the run did about it. */
function stealLine(report: BenchReport): string {
  const steal = report.samples.map((s) => s.disturbance.stealCores)
  const seen = `- Hypervisor steal during the throughput measurements: median ${(median(steal) || 0).toFixed(2)} cores, max ${Math.max(0, ...steal).toFixed(2)} cores`
  const limit = report.options.maxStealCores
  if (limit === undefined) return seen
  const over = steal.filter((cores) => cores > limit).length
  return `${seen}; a measurement with more than ${limit} core of steal was taken again (up to ${STEAL_ATTEMPTS} times, the least stolen kept): ${over === 0 ? 'none was left over it' : `${over} of ${steal.length} stayed over it`}`
}

function machineSection(report: BenchReport): string[] {
  const m = report.machine
  const tools = Object.entries(m.tools)
    .map(([name, version]) => `${name} ${version ?? '**not installed**'}`)
    .join(', ')
  const foreign = report.samples.map((s) => s.disturbance.foreignCores)
  const disturbed = disturbedSamples(report.samples)
  const speed = hostSpeedOf(report)
  const lines = [
    '## Machine',
    '',
    `- CPU: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGb} GiB memory`,
    `- Kernel ${m.kernel}, Node ${m.node}`,
    `- Tools: ${tools}`,
    `- Load average (1/5/15 min) at start ${m.loadAtStart.map((v) => v.toFixed(2)).join(' / ')}, at end ${m.loadAtEnd.map((v) => v.toFixed(2)).join(' / ')}`,
    `- Other processes' CPU during the throughput measurements: median ${(median(foreign) || 0).toFixed(2)} cores, max ${Math.max(0, ...foreign).toFixed(2)} cores`,
    stealLine(report),
  ]
  if (speed !== null) lines.push(`- ${speed.line}`)
  if (speed?.uneven === true) {
    lines.push(
      '',
      `> **Warning: the machine's speed moved during the run** (the same verify took up to ${speed.spread.toFixed(2)} × its fastest). Absolute numbers moved with it; rows measured side by side in the same round (every ratio below) suffer less, but read them with care.`,
    )
  }
  if (disturbed.length > 0) {
    lines.push(
      '',
      `> **Warning: the run was disturbed.** ${disturbed.length} of ${report.samples.length} throughput measurements shared the machine with more than 0.1 core of other people's work (test suites running meanwhile). Ratios measured side by side suffer less than absolute numbers, but read them with care.`,
    )
  }
  return lines
}

/** How a round's measurement was cut; reports from before slices measured in one piece. */
function measurementSlices(o: BenchOptions): string {
  const slices = sliceCount(o.durationS, o.sliceS ?? o.durationS)
  if (slices === 1) return ''
  return `, each round's ${o.durationS} s taken as ${slices} slices of ${o.durationS / slices} s in turn over the scenarios and added up (drift of the machine falls on every row alike)`
}

/** Whether each round ran in new processes; older reports ran one process per system throughout. */
function warmUpAndProcesses(o: BenchOptions): string {
  if (o.restart !== true) return `${o.warmupS} s of warm-up before a scenario's first round`
  return `every system under test but the upstream started again (a new process) before each round and each scenario warmed up for ${o.warmupS} s in every round, so a median is over ${o.rounds} processes (two processes of one program differed by up to a fifth in CPU per request on this machine)`
}

function methodSection(report: BenchReport): string[] {
  const o = report.options
  const latencyPaths =
    report.latency != null && koaFloorOf(report.latency) !== null
      ? 'direct, through the Koa floor (no logic) and through Portcullis'
      : 'direct and through Portcullis'
  return [
    '## Method',
    '',
    `\`npm run bench\` (bench/run.ts) builds the gateway (\`npm run build\`) and starts every system as a child process on 127.0.0.1: a minimal node:http upstream answering 100 bytes over keep-alive (the same for every scenario), a bare Node proxy (node:http in front of an undici pool with no other work: bench/upstream/bare-proxy.ts, the floor under any Node gateway), the same relay as Koa middleware behind an error middleware (bench/upstream/koa-proxy.ts, the Koa floor: the floor under a Koa gateway, which every CPU target is measured against; its \`/local-401\` answers a 401 from a thrown error, as Portcullis answers a request without a credential, and \`/local-401-set\` the same 401 set on the response, nothing thrown), a Fastify peer (bench/upstream/fastify-peer.ts: \`fastify\` + \`@fastify/reply-from\` + \`@fastify/jwt\` checking RS256 with its verified-token cache on, no logging; dev dependencies of the bench only; the harness checks that a forged and a missing token get 401), nginx (1 worker, upstream keep-alive, no access log), HAProxy (1 thread, \`http-reuse always\`) plain and with \`jwt_verify\` RS256 (alg, signature and \`exp\` checked; the harness checks that a forged token gets 401), and one Portcullis per configuration (\`node dist/main.js serve\` with a generated config; embedded store unless stated).`,
    '',
    'Run it with `npm run bench` (`-- --help` for options; `-- --quick` for a smoke check). The comparison systems are optional: `apt-get install nginx haproxy wrk` (Debian packages; HAProxy ≥ 2.5 for `jwt_verify`); whatever is missing is skipped and named below, and autocannon (a dev dependency) replaces wrk. PostgreSQL scenarios need the `postgresql` package, as the test suite does; the instructions phase needs `valgrind` (the phase is skipped, with a note, without it).',
    '',
    `- Gateway built from ${report.build}.`,
    `- Load generator: ${report.generator}, 1 thread, ${o.connections} connections, ${o.durationS} s per measurement, ${o.rounds} rounds alternating over the scenarios (medians reported)${measurementSlices(o)}, ${warmUpAndProcesses(o)}.`,
    `- Quiet machine: ${o.waitQuietCores === null ? 'not waited for' : `each measurement waited (up to 60 s) until other processes used at most ${o.waitQuietCores} cores`}.`,
    `- Pinning: ${report.pinning}. For "direct" the upstream moves to the system-under-test CPU. While one system is measured (its warm-up and measurements, and the latency and flood phases), every other system under test is stopped (SIGSTOP to its process group) and continued afterwards: an idle server still wakes up on its own, and a dozen of them on the system-under-test CPU took CPU time from the one measured (in one run of 5 s rounds, when each idle gateway sampled its event loop every 10 ms, about 110 wake-ups a second, the excluded route took 57.5–61.8 µs with them running and 42.3–43.0 µs with them stopped; the Koa floor 45.0–46.2 and 36.5 µs; the gateway now samples every 100 ms, about 22 wake-ups a second when idle).`,
    `- Portcullis access log: ${o.accessLog ? 'on (the default config)' : 'off (--access-log off)'}, written to a file; for the access log's cost one gateway runs the same scenario with its log off and on, the setting changed by a configuration reload (SIGHUP) before each measurement.`,
    '- CPU per request: utime+stime of the system under test (all processes of nginx) from /proc over the run, divided by the requests answered. "SUT busy" is that CPU time over the run\'s length: near 100 % the system under test was the limit; well below, the limit was CPU 0 (wrk and the upstream) or the other processes. "others" is the CPU time processes outside the harness used meanwhile (interrupt time excluded), in cores.',
    '- Fresh JWTs: 20,000 distinct tokens per algorithm, cycled (continuing across runs) through a verified-token cache of 10,000 (LRU), so each request is a signature check.',
    "- Plain RS256 verify: node:crypto `verify` of one RS256 token with the fresh-RS256 gateway's RSA-2048 key as a KeyObject made once, in a loop in a process of its own on the system-under-test CPU (5 trials of 5,000 after 1,000 of warm-up; CPU time per verify, median of the trials). Target 4 bounds the fresh-RS256 row by the Koa floor's CPU per request plus 1.5 of these.",
    `- Answers the gateway gives itself: "no credential" sends no Authorization header to an authenticated route (every answer 401); "throttled" sends one well-formed unknown svc_pat_ token from one address (X-Forwarded-For ${THROTTLED_ADDRESS}) after enough failures to trip the failed-lookup throttle (every answer 429; the throttle is tripped again before each round). The load generator counts their answers per status; "unexpected" in the table is answers with another status than the scenario's (200 elsewhere) plus socket errors, and a CPU target of these rows is measured only when at least ${EXPECTED_SHARE * 100} % of the answers had the expected status.`,
    `- Latency: open-loop ${o.latencyRate} req/s for ${o.durationS} s per round over ${LATENCY_CONNECTIONS} connections, alternating ${latencyPaths} (warm service-account token), latencies in µs from a Node undici client; what a path adds is its median over the rounds minus direct's.`,
    `- Flood: good clients (closed loop, X-Forwarded-For 127.0.0.2) alone, then while 127.0.0.3 sends well-formed unknown svc_pat_ tokens at ${o.floodRate} req/s (\`server.trusted_proxies: [127.0.0.1/32]\`). What a flood request costs the gateway in place is its CPU under the flood less the good requests at their CPU alone, per flood request meanwhile.`,
    `- Memory: RSS from /proc once a start has settled (V8 keeps the start-up's garbage until its memory reducer runs, 8 to 16 s after the last full collection of an idle process; so the gateway is left idle, its RSS read from /proc every ${SETTLE_RULE.intervalMs / 1000} s, until at least ${SETTLE_RULE.minMs / 1000} s have passed and it has not dropped by more than ${SETTLE_RULE.maxDrop * 100} % (or ${SETTLE_RULE.dropFloorBytes / 1024 / 1024} MB) over the last ${SETTLE_RULE.windowMs / 1000} s, at most ${SETTLE_RULE.maxMs / 1000} s; no collection is forced), then ${o.memoryAccounts.toLocaleString('en-US')} accounts inserted directly into the store (hashes from src/service-accounts/token-format.ts) and each token verified once, RSS read again once settled the same way (the peak includes the warm-up); the V8 heap per cached account is the growth of the heap between full collections forced through the inspector (opened after the RSS after start was read), from after the first ${WARM_ACCOUNTS.toLocaleString('en-US')} accounts (which make V8 compile the verification path) to after the last, divided by the accounts between. The embedded store's first start is on an empty data directory, its peak the gateway and the child that initialises the directory together.`,
    `- Revocation: two gateways on one PostgreSQL database (cache TTL 300 s); ${o.revocations} cached tokens revoked one by one through replica A's API while replica B is polled back to back; time from the revoke request to B's first 401.`,
    ...allocationMethod(report),
    ...instructionsMethod(report),
  ]
}

/** "read after 37 s idle", when the report recorded the wait for the memory to settle. */
function settledAfter(seconds: number | undefined): string[] {
  return seconds === undefined ? [] : [`read after ${seconds.toFixed(0)} s idle`]
}

function parenthesised(parts: readonly string[]): string {
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`
}

/** The latency table's rows; the Koa floor's only when the run measured it. */
function latencyRows(l: LatencyResult): string[][] {
  const path = (name: string, p: LatencyPath) => [
    name,
    ms(p.p50Us),
    ms(p.p99Us),
    String(p.requests),
  ]
  const added = (name: string, p50Us: number, p99Us: number) => [name, ms(p50Us), ms(p99Us), '']
  const floor = koaFloorOf(l)
  return [
    path('direct', l.direct),
    ...(floor === null ? [] : [path('Koa floor (no logic)', floor.path)]),
    path('Portcullis (warm token)', l.gateway),
    ...(floor === null
      ? []
      : [added('added by the Koa floor', floor.addedP50Us, floor.addedP99Us)]),
    added('added by the gateway', l.addedP50Us, l.addedP99Us),
  ]
}

function phaseSection(report: BenchReport): string[] {
  const lines: string[] = []
  const v = report.rsaVerify
  if (v != null) {
    lines.push(
      '### Plain node:crypto RS256 verify',
      '',
      `RSA-2048, KeyObject prepared once: **${v.cpuUsPerVerify.toFixed(1)} µs of CPU per verify** (${v.wallUsPerVerify.toFixed(1)} µs wall; median of ${v.trials} trials of ${v.iterations.toLocaleString('en-US')}).`,
      '',
    )
  }
  const counted = report.summaries.filter((s) => s.statuses !== undefined)
  if (counted.length > 0) {
    lines.push(
      '### Answers counted per status',
      '',
      markdownTable(
        ['scenario', 'expected', 'answers'],
        counted.map((s) => [
          s.label,
          String(s.expectStatus ?? 200),
          Object.entries(s.statuses ?? {})
            .map(([status, count]) => `${count.toLocaleString('en-US')} × ${status}`)
            .join(', '),
        ]),
      ),
      '',
    )
  }
  const l = report.latency
  if (l !== null) {
    lines.push(
      `### Latency at ${l.rate} req/s`,
      '',
      markdownTable(['path', 'p50 ms', 'p99 ms', 'requests'], latencyRows(l)),
      '',
    )
  }
  const f = report.flood
  if (f !== null) {
    lines.push(
      '### Flood of bad tokens',
      '',
      `Good clients alone ${Math.round(f.aloneRps)} req/s, under the flood ${Math.round(f.underFloodRps)} req/s: **${(f.drop * 100).toFixed(1)} % lost**. Flood ${Math.round(f.floodAchievedRps)} req/s achieved (asked ${f.floodRate}); answers ${JSON.stringify(f.floodStatuses)}.`,
      '',
    )
  }
  for (const m of report.memory) {
    lines.push(
      `### Memory (${m.store} store)`,
      '',
      ...(m.firstStart == null
        ? []
        : [
            `First start on an empty data directory: peak **${m.firstStart.peakMb.toFixed(1)} MB** with the child that initialises it (gateway ${m.firstStart.gatewayPeakMb.toFixed(1)} MB, child ${m.firstStart.childPeakMb.toFixed(1)} MB), **${m.firstStart.rssMb.toFixed(1)} MB** once settled${parenthesised(settledAfter(m.firstStart.rssWaitS))}.`,
            '',
          ]),
      `${m.accounts.toLocaleString('en-US')} accounts: RSS **${m.rssBeforeMb.toFixed(1)} MB** after start${parenthesised([...settledAfter(m.rssBeforeWaitS), ...(m.startPeakMb === undefined ? [] : [`peak ${m.startPeakMb.toFixed(1)} MB`])])}, **${m.rssAfterMb.toFixed(1)} MB** after each token was verified once (${[...settledAfter(m.rssAfterWaitS), `peak ${m.peakMb.toFixed(1)} MB`].join(', ')}; V8 heap in use ${m.heapUsedMb.toFixed(1)} MB, external ${m.externalMb.toFixed(1)} MB${m.heapPerAccountBytes == null ? '' : `; ${Math.round(m.heapPerAccountBytes)} bytes of heap per cached account after GC`}; warming took ${m.warmSeconds.toFixed(1)} s, ${m.failures} failures).`,
      '',
    )
  }
  const r = report.revocation
  if (r !== null) {
    lines.push(
      '### Revocation between replicas',
      '',
      `${r.tokens} tokens: p50 **${r.p50Ms.toFixed(1)} ms**, p99 **${r.p99Ms.toFixed(1)} ms**, max ${r.maxMs.toFixed(1)} ms from the revoke request; p99 ${r.afterAckP99Ms.toFixed(1)} ms after A answered; ${r.timedOut} timed out.`,
      '',
    )
  }
  lines.push(...allocationSection(report.allocation, true))
  lines.push(...instructionsSection(report.instructions, true))
  return lines
}

function targetSection(report: BenchReport, targets: readonly TargetResult[]): string[] {
  const lines = [
    '## Targets',
    '',
    'Issue 23\'s ten targets, numbered and worded as in the issue ("issue" column: `23 #n`); a target with several parts has a row for each. Every ratio is to a row of the same run; target 6 is read only from rounds of 10 s or more.',
    '',
    markdownTable(TARGET_HEADER, targetRows(targets), 2),
    '',
  ]
  const missed = targets.filter((t) => t.status !== 'PASS')
  if (missed.length > 0) lines.push('### What limits the missed targets', '')
  for (const t of missed) {
    lines.push(`- **${t.description}** (${t.status}, ${t.shown}): ${limitNote(t, report)}`)
    const analysis = analysisOf(t.id)
    if (analysis !== '') lines.push(`  ${analysis}`)
  }
  lines.push('', '### What the hot-path work changed', '', ...HOT_PATH_CHANGES.map((c) => `- ${c}`))
  return lines
}

/** docs/benchmarks.md, entirely from one run's report. */
export function renderDoc(report: BenchReport, targets: readonly TargetResult[]): string {
  return [
    '# Benchmarks',
    '',
    `<!-- Generated by \`npm run bench\` (bench/run.ts) from the run of ${report.startedAt}; rerun to refresh. The analysis prose comes from bench/report/analysis.ts. -->`,
    '',
    `Last run: ${report.startedAt} → ${report.finishedAt}.`,
    '',
    ...machineSection(report),
    '',
    ...methodSection(report),
    '',
    '## Results',
    '',
    throughputTable(report.summaries, true),
    '',
    ...(report.skipped.length > 0
      ? ['Skipped:', '', ...skippedLines(report.skipped).map((l) => `- ${l}`), '']
      : []),
    ...phaseSection(report),
    ...targetSection(report, targets),
    ...(report.notes.length > 0 ? ['', '## Notes', '', ...report.notes.map((n) => `- ${n}`)] : []),
    '',
  ].join('\n')
}
