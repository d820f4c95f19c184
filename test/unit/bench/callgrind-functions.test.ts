import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { callgrindFunctions } from '../../../bench/tools/callgrind-functions.js'

// Two requests: `handle` (compiled JavaScript, named by the perf map) runs 30 instructions of its
// own and calls `hash` (a C function) twice, which runs 50 each; `idle` runs 4.
const DUMP = [
  '# callgrind format',
  'positions: instr',
  'events: Ir',
  'fn=(1) 0x00007f0000001000',
  '0x7f0000001010 30',
  'cfn=(2) hash',
  'calls=2 0x500000',
  '0x7f0000001020 100',
  'fn=(2)',
  '0x500000 100',
  'fn=(3) idle',
  '0x600000 4',
  'totals: 234',
].join('\n')
const PERF_MAP = ['7f0000001000 100 JS:*handle file:///dist/app.js:1:1', ''].join('\n')

void t.test('instructions a request by function, compiled JavaScript named', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-functions-'))
  const dump = join(dir, 'dump')
  const map = join(dir, 'perf.map')
  writeFileSync(dump, DUMP)
  writeFileSync(map, PERF_MAP)
  const self = callgrindFunctions(['self', dump, map, '2'])
  t.same(self, [
    'total 67 instructions a request',
    '      50  hash',
    '      15  JS:*handle file:///dist/app.js:1:1',
    '       2  idle',
  ])
  t.same(callgrindFunctions(['inclusive', dump, map, '2', 'handle']), [
    '      65  JS:*handle file:///dist/app.js:1:1',
  ])
  t.same(callgrindFunctions(['callers', dump, map, '2', 'hash']), [
    '    1.00 calls       50  JS:*handle file:///dist/app.js:1:1  ->  hash',
  ])
  t.same(callgrindFunctions(['callees', dump, map, '2', 'handle']), [
    '    1.00 calls       50  JS:*handle file:///dist/app.js:1:1  ->  hash',
  ])
  const before = join(dir, 'before')
  const after = join(dir, 'after')
  writeFileSync(before, self.join('\n'))
  writeFileSync(
    after,
    ['total 60', '      40  hash', '      15  JS:*handle x', '       5  new'].join('\n'),
  )
  t.same(callgrindFunctions(['diff', before, after]), [
    '     -15  JS:*handle file:///dist/app.js:1:1',
    '      15  JS:*handle x',
    '     -10  hash',
    '       5  new',
    '      -2  idle',
  ])
  t.throws(() => callgrindFunctions(['self']), /usage/)
  t.throws(() => callgrindFunctions(['other', dump, map, '2']), /unknown command other/)
})
