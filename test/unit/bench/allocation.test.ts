import t from 'tap'
import {
  perRequest,
  sitesPerRequest,
  summarizeHeapProfile,
  type SamplingHeapProfileNode,
} from '../../../bench/lib/heap-profile.js'
import type { AllocationResult } from '../../../bench/lib/types.js'
import {
  ALLOCATION_TITLE,
  allocationRows,
  allocationSection,
  siteRows,
} from '../../../bench/report/allocation.js'
import { renderDoc } from '../../../bench/report/doc.js'
import { evaluateTargets } from '../../../bench/report/targets.js'
import { EMPTY_REPORT } from './empty-report.js'

const node = (
  functionName: string,
  url: string,
  lineNumber: number,
  selfSize: number,
  children: SamplingHeapProfileNode[] = [],
): SamplingHeapProfileNode => ({ callFrame: { functionName, url, lineNumber }, selfSize, children })

/** A small profile: one site reached by two stacks, an anonymous function, native code. */
const PROFILE = {
  head: node('(root)', '', -1, 0, [
    node('handle', 'file:///srv/dist/http/server.js', 9, 100, [
      node('alloc', 'file:///srv/node_modules/koa/lib/context.js', 41, 300),
      node('', 'file:///srv/dist/http/server.js', 19, 50),
    ]),
    node('other', 'node:internal/streams/writable', 743, 0, [
      node('alloc', 'file:///srv/node_modules/koa/lib/context.js', 41, 200),
      node('Map', '', -1, 150),
    ]),
  ]),
}

void t.test('a heap profile summed: every selfSize, and by site', async (t) => {
  const summary = summarizeHeapProfile(PROFILE)
  t.equal(summary.totalBytes, 800)
  t.same(summary.sites, [
    { functionName: 'alloc', where: 'context.js:42', bytes: 500 },
    { functionName: 'Map', where: '(native)', bytes: 150 },
    { functionName: 'handle', where: 'server.js:10', bytes: 100 },
    { functionName: '(anonymous)', where: 'server.js:20', bytes: 50 },
  ])
  const top = summarizeHeapProfile(PROFILE, 2)
  t.equal(top.totalBytes, 800, 'the total counts the sites left out')
  t.same(
    top.sites.map((site) => site.functionName),
    ['alloc', 'Map'],
  )
  t.same(summarizeHeapProfile({ head: node('(root)', '', -1, 0) }), { totalBytes: 0, sites: [] })
})

void t.test('divided by the requests counted meanwhile', async (t) => {
  t.equal(perRequest(800, 4), 200)
  t.throws(() => perRequest(800, 0), /no request was counted/)
  t.same(sitesPerRequest(summarizeHeapProfile(PROFILE, 1), 4), [
    { functionName: 'alloc', where: 'context.js:42', bytesPerRequest: 125 },
  ])
})

const result = (
  scenario: string,
  label: string,
  bytesPerRequest: number,
  topSites: AllocationResult['topSites'] = [],
  failures = 0,
): AllocationResult => ({
  scenario,
  label,
  path: '/health',
  requests: 100_000,
  sampledS: 8,
  bytesPerRequest,
  topSites,
  failures,
})

const RESULTS: AllocationResult[] = [
  result('koa-floor', 'Koa floor', 16.5 * 1024, [
    { functionName: 'dispatch', where: 'koa-proxy.ts:45', bytesPerRequest: 2620.4 },
  ]),
  result('pc-excluded', 'excluded', 23 * 1024, [
    { functionName: 'attachFinishedListener', where: 'index.js:92', bytesPerRequest: 1947 },
    { functionName: 'forwardStep', where: 'forward.js:8', bytesPerRequest: 1730 },
  ]),
  result('pc-sa-warm', 'warm token', 27.5 * 1024, [], 3),
]

void t.test('rows: KB a request and the ratio to the Koa floor', async (t) => {
  t.same(allocationRows(RESULTS), [
    ['Koa floor', '16.50', '1.00 ×'],
    ['excluded', '23.00', '1.39 ×'],
    ['warm token', '27.50', '1.67 ×'],
  ])
  t.same(allocationRows(RESULTS.slice(1, 2)), [['excluded', '23.00', '—']], 'no floor, no ratio')
  t.same(siteRows(RESULTS), [
    ['1', 'attachFinishedListener (index.js:92)', '1947', 'dispatch (koa-proxy.ts:45)', '2620'],
    ['2', 'forwardStep (forward.js:8)', '1730', '', ''],
  ])
})

void t.test('the terminal summary: the tables, or nothing', async (t) => {
  const text = allocationSection(RESULTS, false).join('\n')
  t.match(text, `${ALLOCATION_TITLE}:`)
  t.match(text, /excluded\s+23\.00\s+1\.39 ×/)
  t.match(text, /warm token: 3 answers with another status than 200/)
  t.match(
    text,
    /1\s+attachFinishedListener \(index\.js:92\)\s+1947\s+dispatch \(koa-proxy\.ts:45\)\s+2620/,
  )
  t.same(allocationSection(undefined, false), [])
  t.same(allocationSection([], true), [])
})

void t.test(
  'docs/benchmarks.md with the allocation phase, and from a report without it',
  async (t) => {
    const measured = { ...EMPTY_REPORT, allocation: RESULTS }
    const doc = renderDoc(measured, evaluateTargets(measured))
    t.match(
      doc,
      `### ${ALLOCATION_TITLE}\n\n| system | KB/request | × Koa floor |\n|---|---:|---:|\n| Koa floor | 16.50 | 1.00 × |`,
    )
    t.match(
      doc,
      [
        '| # | excluded route (/health) | B/req | Koa floor | B/req |',
        '|---:|---|---:|---|---:|',
        '| 1 | attachFinishedListener (index.js:92) | 1947 | dispatch (koa-proxy.ts:45) | 2620 |',
      ].join('\n'),
    )
    t.match(
      doc,
      /- Allocation \(informational, no target\): .* autocannon with 50 connections for 8 s of warm-up/,
    )
    t.notMatch(
      evaluateTargets(measured)
        .map((target) => target.description)
        .join('\n'),
      /alloc/i,
      'no target',
    )
    const before = renderDoc(EMPTY_REPORT, evaluateTargets(EMPTY_REPORT))
    t.notMatch(before, /Allocat/)
    t.ok(before.includes('## Results'))
  },
)
