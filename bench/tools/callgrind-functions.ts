/**
 * Instructions a request, function by function, from a callgrind dump of the gateway: where the
 * instructions phase's total goes. V8's compiled JavaScript is named from node's perf map.
 *
 * Make the dump: run the system as the instructions phase does (bench/scenarios/instructions.ts),
 * with `--dump-instr=yes --compress-pos=no` added to valgrind's options and `--perf-basic-prof` to
 * node's (it writes /tmp/perf-<pid>.map), warm it up, then count a window of N requests with
 * `callgrind_control --instr=on <pid>`, the requests, `--instr=off`, `--dump`. Then:
 *
 *   npx tsx bench/tools/callgrind-functions.ts self <dump> <perf map> <N> [top]
 *   npx tsx bench/tools/callgrind-functions.ts inclusive <dump> <perf map> <N> <name part> [top]
 *   npx tsx bench/tools/callgrind-functions.ts callers <dump> <perf map> <N> <name part> [top]
 *   npx tsx bench/tools/callgrind-functions.ts callees <dump> <perf map> <N> <name part> [top]
 *   npx tsx bench/tools/callgrind-functions.ts diff <self listing A> <self listing B> [top]
 *
 * `self` lists each function's own instructions a request; `inclusive` adds what it called;
 * `callers` and `callees` list the call edges into or out of the matching functions (calls and
 * inclusive instructions a request); `diff` subtracts two `self` listings (B − A), largest first.
 */
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

type Cost = Map<string, number>

/** Compiled JavaScript's address ranges and names, from node's `--perf-basic-prof` map. */
export class PerfMap {
  readonly #ranges: [start: number, end: number, name: string][] = []

  constructor(file: string) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line)
      if (match === null) continue
      const start = parseInt(match[1] as string, 16)
      this.#ranges.push([start, start + parseInt(match[2] as string, 16), match[3] as string])
    }
    this.#ranges.sort((a, b) => a[0] - b[0])
  }

  /** Callgrind names code it has no symbol for by its address; such code is V8's. */
  name(fn: string, address: number): string {
    if (!/^0x[0-9a-f]+$/.test(fn)) return fn
    let low = 0
    let high = this.#ranges.length - 1
    while (low <= high) {
      const middle = (low + high) >> 1
      const [start, end, name] = this.#ranges[middle] as [number, number, string]
      if (address < start) high = middle - 1
      else if (address >= end) low = middle + 1
      else return name
    }
    return 'JIT (unnamed)'
  }
}

interface Edge {
  readonly caller: string
  readonly callee: string
  readonly calls: number
  readonly inclusive: number
}

/**
 * Reads a dump made with `--dump-instr=yes --compress-pos=no`: each cost line starts with an
 * instruction's address; a `calls=` line is followed by the call's inclusive cost.
 */
export function readDump(file: string, perfMap: PerfMap): { self: Cost; edges: Edge[] } {
  const names = new Map<string, string>()
  const self: Cost = new Map()
  const edges: Edge[] = []
  let fn = '?'
  let callee = '?'
  let call: { calls: number; target: number } | undefined
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const named = /^(c?fn)=\((\d+)\)(?: (.*))?$/.exec(line)
    if (named !== null) {
      const [, kind, id, name] = named as unknown as [string, string, string, string | undefined]
      if (name !== undefined) names.set(id, name)
      if (kind === 'fn') fn = names.get(id) ?? id
      else callee = names.get(id) ?? id
      continue
    }
    const calls = /^calls=(\d+) (0x[0-9a-f]+)/.exec(line)
    if (calls !== null) {
      call = { calls: Number(calls[1]), target: parseInt(calls[2] as string, 16) }
      continue
    }
    if (!line.startsWith('0x')) continue
    const [addressText, costText] = line.split(' ')
    const address = parseInt(addressText as string, 16)
    const cost = Number(costText)
    const caller = perfMap.name(fn, address)
    if (call === undefined) {
      self.set(caller, (self.get(caller) ?? 0) + cost)
    } else {
      const target = perfMap.name(callee, call.target)
      edges.push({ caller, callee: target, calls: call.calls, inclusive: cost })
      call = undefined
    }
  }
  return { self, edges }
}

function inclusiveCosts(self: Cost, edges: readonly Edge[]): Cost {
  const inclusive: Cost = new Map(self)
  for (const edge of edges) {
    inclusive.set(edge.caller, (inclusive.get(edge.caller) ?? 0) + edge.inclusive)
  }
  return inclusive
}

const perRequest = (cost: number, requests: number) => Math.round(cost / requests)

function listing(costs: Cost, requests: number, top: number, part = ''): string[] {
  return [...costs]
    .filter(([name]) => name.includes(part))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, cost]) => `${String(perRequest(cost, requests)).padStart(8)}  ${name}`)
}

function edgeListing(
  edges: readonly Edge[],
  requests: number,
  top: number,
  matches: (edge: Edge) => boolean,
): string[] {
  const merged = new Map<string, { calls: number; inclusive: number }>()
  for (const edge of edges.filter(matches)) {
    const key = `${edge.caller}  ->  ${edge.callee}`
    const sum = merged.get(key) ?? { calls: 0, inclusive: 0 }
    sum.calls += edge.calls
    sum.inclusive += edge.inclusive
    merged.set(key, sum)
  }
  return [...merged]
    .sort((a, b) => b[1].inclusive - a[1].inclusive)
    .slice(0, top)
    .map(
      ([key, sum]) =>
        `${(sum.calls / requests).toFixed(2).padStart(8)} calls ${String(perRequest(sum.inclusive, requests)).padStart(8)}  ${key}`,
    )
}

/** A `self` listing read back: name → instructions a request. */
function readListing(file: string): Cost {
  const costs: Cost = new Map()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^\s*(-?\d+) {2}(.*)$/.exec(line)
    if (match !== null) costs.set(match[2] as string, Number(match[1]))
  }
  return costs
}

export function callgrindFunctions(argv: readonly string[]): string[] {
  const [command, ...rest] = argv
  if (command === 'diff') {
    const [a, b, top = '50'] = rest as [string, string, string?]
    const left = readListing(a)
    const right = readListing(b)
    const names = new Set([...left.keys(), ...right.keys()])
    return [...names]
      .map((name): [string, number] => [name, (right.get(name) ?? 0) - (left.get(name) ?? 0)])
      .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
      .slice(0, Number(top))
      .map(([name, difference]) => `${String(difference).padStart(8)}  ${name}`)
  }
  const [dump, map, requestsText, fourth, fifth] = rest
  if (
    command === undefined ||
    dump === undefined ||
    map === undefined ||
    requestsText === undefined
  ) {
    throw new Error('usage: see the comment at the top of bench/tools/callgrind-functions.ts')
  }
  const requests = Number(requestsText)
  const { self, edges } = readDump(dump, new PerfMap(map))
  const total = [...self.values()].reduce((sum, cost) => sum + cost, 0)
  const header = `total ${perRequest(total, requests)} instructions a request`
  switch (command) {
    case 'self':
      return [header, ...listing(self, requests, Number(fourth ?? '60'))]
    case 'inclusive':
      return listing(inclusiveCosts(self, edges), requests, Number(fifth ?? '60'), fourth ?? '')
    case 'callers':
      return edgeListing(edges, requests, Number(fifth ?? '40'), (e) =>
        e.callee.includes(fourth ?? ''),
      )
    case 'callees':
      return edgeListing(edges, requests, Number(fifth ?? '40'), (e) =>
        e.caller.includes(fourth ?? ''),
      )
    default:
      throw new Error(`unknown command ${command}: self, inclusive, callers, callees, diff`)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${callgrindFunctions(process.argv.slice(2)).join('\n')}\n`)
}
