import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAverage } from './lib/proc.js'
import { selfTimeByPackage, topSelfTime, type CpuProfile } from './lib/profile.js'
import type {
  BenchOptions,
  BenchReport,
  HostSpeedReading,
  MachineInfo,
  Sample,
  SkippedScenario,
} from './lib/types.js'
import type { PhaseResults } from './phases.js'
import { allocationSection } from './report/allocation.js'
import { instructionsSection } from './report/instructions.js'
import { renderDoc } from './report/doc.js'
import { hostSpeedOf } from './report/host-speed.js'
import { disturbedSamples, summarize } from './report/summarize.js'
import {
  skippedLines,
  TARGET_HEADER,
  targetRows,
  textTable,
  throughputTable,
} from './report/table.js'
import { evaluateTargets } from './report/targets.js'
import { THROUGHPUT_SCENARIOS } from './scenarios/catalog.js'
import { PROJECT_ROOT } from './systems/gateway.js'

export interface Collected extends PhaseResults {
  readonly stamp: string
  readonly startedAt: string
  readonly options: BenchOptions
  readonly machine: MachineInfo
  readonly generator: string
  readonly pinning: string
  readonly build: string
  readonly samples: Sample[]
  readonly skipped: SkippedScenario[]
  readonly hostSpeed: HostSpeedReading[]
  readonly notes: string[]
  readonly profileDir: string | undefined
}

/** Builds the report of a finished run and publishes it (JSON always, docs when asked). */
export function finish(collected: Collected, log: (line: string) => void): BenchReport {
  const { stamp, profileDir, ...rest } = collected
  const report: BenchReport = {
    ...rest,
    finishedAt: new Date().toISOString(),
    machine: { ...collected.machine, loadAtEnd: loadAverage() },
    summaries: summarize(collected.samples, THROUGHPUT_SCENARIOS),
  }
  const dir = join(PROJECT_ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const jsonFile = join(dir, `${stamp}.json`)
  writeFileSync(
    jsonFile,
    `${JSON.stringify({ ...report, targets: evaluateTargets(report) }, null, 2)}\n`,
  )
  publish(report, collected.options.writeDocs === true, log)
  log(`results: ${jsonFile}`)
  if (profileDir !== undefined) printProfiles(profileDir)
  return report
}

/** `--report <file>`: the tables (and docs) again from a saved result, without measuring. */
export function republish(file: string, writeDocs: boolean, log: (line: string) => void): void {
  publish(JSON.parse(readFileSync(file, 'utf8')) as BenchReport, writeDocs, log)
}

/** Prints the tables and targets; rewrites docs/benchmarks.md when asked. */
function publish(report: BenchReport, writeDocs: boolean, log: (line: string) => void): void {
  const targets = evaluateTargets(report)
  const out: string[] = ['', throughputTable(report.summaries), '']
  out.push(...skippedLines(report.skipped), '')
  out.push(textTable(TARGET_HEADER, targetRows(targets)), '')
  out.push(...allocationSection(report.allocation, false))
  out.push(...instructionsSection(report.instructions, false))
  const speed = hostSpeedOf(report)
  if (speed !== null) out.push(speed.line)
  if (speed?.uneven === true) {
    out.push(
      `WARNING: the machine's speed moved during the run (slowest ${speed.spread.toFixed(2)} × the fastest).`,
    )
  }
  const disturbed = disturbedSamples(report.samples)
  if (disturbed.length > 0) {
    out.push(
      `WARNING: ${disturbed.length} of ${report.samples.length} measurements were disturbed by other processes (> 0.1 core); load average at end ${report.machine.loadAtEnd.map((v) => v.toFixed(2)).join(' ')}.`,
    )
  }
  out.push(...report.notes.map((note) => `note: ${note}`))
  process.stdout.write(`${out.join('\n')}\n`)
  if (writeDocs) {
    const doc = join(PROJECT_ROOT, 'docs', 'benchmarks.md')
    writeFileSync(doc, renderDoc(report, targets))
    log(`wrote ${doc}`)
  }
}

function printProfiles(dir: string): void {
  let files: string[] = []
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'))
  } catch {
    // none written
  }
  for (const file of files) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile
    const rows = topSelfTime(profile, 20).map((entry) => [
      entry.percent.toFixed(1),
      entry.name,
      entry.where,
    ])
    const groups = selfTimeByPackage(profile).map((entry) => [entry.percent.toFixed(1), entry.name])
    process.stdout.write(
      `\nCPU profile ${join(dir, file)} (self time, % of busy samples)\n` +
        `${textTable(['%', 'where'], groups)}\n\n${textTable(['%', 'function', 'where'], rows)}\n`,
    )
  }
}
