import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { callgrindTotal, callgrindWrapper } from '../../../bench/lib/callgrind.js'
import type { InstructionResult } from '../../../bench/lib/types.js'
import { renderDoc } from '../../../bench/report/doc.js'
import {
  INSTRUCTIONS_TITLE,
  instructionRows,
  instructionsMethod,
  instructionsSection,
} from '../../../bench/report/instructions.js'
import { evaluateTargets } from '../../../bench/report/targets.js'
import { PHASES, THROUGHPUT_SCENARIOS, selectIds } from '../../../bench/scenarios/catalog.js'
import { INSTRUCTION_SCENARIOS } from '../../../bench/scenarios/instructions.js'
import { EMPTY_REPORT } from './empty-report.js'

void t.test("a callgrind dump's total is its totals line", async (t) => {
  const dump = [
    '# callgrind format',
    'events: Ir',
    'summary: 0',
    '',
    'fn=(1) main',
    '0x401000 12',
    '',
    'totals: 345678901',
  ].join('\n')
  t.equal(callgrindTotal(dump), 345_678_901, 'not the summary line, which is 0 for a dump')
  t.equal(callgrindTotal('events: Ir\n'), 0, 'a dump that counted nothing')
})

void t.test('counted from the start of a window only, one file per process and dump', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-'))
  t.same(callgrindWrapper(dir, 'instructions-koa-floor'), [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--dump-line=no',
    `--callgrind-out-file=${join(dir, 'instructions-koa-floor.callgrind.%p')}`,
  ])
})

const result = (scenario: string, label: string, windows: number[]): InstructionResult => ({
  scenario,
  label,
  path: '/health',
  warmup: 20_000,
  windowRequests: 2_000,
  windows,
  perRequest: Math.min(...windows),
})

const RESULTS: InstructionResult[] = [
  result('koa-floor', 'Koa floor', [157_191, 156_437, 156_900]),
  result('pc-excluded', 'excluded', [173_104, 172_081, 177_619]),
  result('pc-sa-warm', 'warm token', [207_173, 206_419, 214_529]),
]

void t.test('rows: the lowest window, every window, the ratio to the Koa floor', async (t) => {
  t.same(instructionRows(RESULTS), [
    ['Koa floor', '156,437', '157,191, 156,437, 156,900', '1.00 ×'],
    ['excluded', '172,081', '173,104, 172,081, 177,619', '1.10 ×'],
    ['warm token', '206,419', '207,173, 206,419, 214,529', '1.32 ×'],
  ])
  t.same(instructionRows(RESULTS.slice(1, 2))[0]?.[3], '—', 'no floor, no ratio')
})

void t.test('the terminal summary: the table, or nothing', async (t) => {
  const text = instructionsSection(RESULTS, false).join('\n')
  t.match(text, `${INSTRUCTIONS_TITLE}:`)
  t.match(text, /warm token\s+206,419\s+207,173, 206,419, 214,529\s+1\.32 ×/)
  t.same(instructionsSection(undefined, false), [])
  t.same(instructionsSection([], true), [])
})

void t.test('docs/benchmarks.md with the instructions phase, and without it', async (t) => {
  const measured = { ...EMPTY_REPORT, instructions: RESULTS }
  const doc = renderDoc(measured, evaluateTargets(measured))
  t.match(
    doc,
    [
      `### ${INSTRUCTIONS_TITLE}`,
      '',
      '| system | instructions/request | windows | × Koa floor |',
      '|---|---:|---|---:|',
      '| Koa floor | 156,437 | 157,191, 156,437, 156,900 | 1.00 × |',
    ].join('\n'),
  )
  t.match(
    doc,
    /- Instructions \(informational, no target of their own\): .* 20,000 requests of warm-up .* then 3 windows of 2,000 requests/,
  )
  t.same(instructionsMethod(EMPTY_REPORT), [], 'no method line without the phase')
  const without = renderDoc(EMPTY_REPORT, evaluateTargets(EMPTY_REPORT))
  t.notMatch(without, INSTRUCTIONS_TITLE, 'an older report renders without the section')
})

void t.test('a phase of its own, selected by name', async (t) => {
  t.ok(PHASES.includes('instructions'))
  t.same(selectIds(['instructions']), ['instructions'])
})

void t.test(
  'each counted row is a throughput row, the 401s and the 429 expected as such',
  async (t) => {
    const counted = INSTRUCTION_SCENARIOS.map((id) => {
      const scenario = THROUGHPUT_SCENARIOS.find((s) => s.id === id)
      return [id, scenario?.expectStatus]
    })
    t.same(counted, [
      ['koa-floor', 200],
      ['pc-excluded', 200],
      ['pc-sa-warm', 200],
      ['koa-floor-401-set', 401],
      ['pc-401', 401],
      ['pc-429', 429],
    ])
  },
)
