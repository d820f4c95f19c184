import { DEFAULT_OPTIONS } from '../../../bench/lib/args.js'
import type { BenchReport } from '../../../bench/lib/types.js'

/** A report of a run that measured nothing: tests of one phase add that phase's results. */
export const EMPTY_REPORT: BenchReport = {
  startedAt: '2026-11-28T06:00:00.000Z',
  finishedAt: '2026-11-28T06:10:00.000Z',
  options: DEFAULT_OPTIONS,
  machine: {
    cpuModel: 'Test CPU',
    cores: 2,
    memoryGb: 4,
    kernel: '6.0',
    node: 'v20.18.1',
    tools: {},
    loadAtStart: [0, 0, 0],
    loadAtEnd: [0, 0, 0],
  },
  generator: 'wrk',
  pinning: 'none',
  build: 'test',
  summaries: [],
  samples: [],
  skipped: [],
  latency: null,
  flood: null,
  memory: [],
  revocation: null,
  notes: [],
}
