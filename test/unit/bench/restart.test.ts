import type { ChildProcess } from 'node:child_process'
import t from 'tap'
import type { SystemKey } from '../../../bench/scenarios/catalog.js'
import { restartSystem, type World } from '../../../bench/scenarios/world.js'
import type { RunningSystem } from '../../../bench/systems/system.js'

function fakeSystem(name: string, pid: number, stopped: string[]): RunningSystem {
  return {
    name,
    baseUrl: `http://127.0.0.1:${pid}`,
    pids: [pid],
    child: {} as ChildProcess,
    async stop() {
      stopped.push(`${name}:${pid}`)
    },
  }
}

function worldWith(key: SystemKey, start: () => Promise<RunningSystem>, first: RunningSystem) {
  const world = {
    systems: new Map([[key, first]]),
    gateways: new Map(),
    starters: new Map([[key, start]]),
    unavailable: new Map(),
  }
  return world as unknown as World
}

void t.test('a restart stops the running process and measures the next one', async (t) => {
  const stopped: string[] = []
  let pid = 100
  const start = async () => fakeSystem('koa-floor', ++pid, stopped)
  const world = worldWith('koa-floor', start, await start())
  await restartSystem(world, 'koa-floor', () => {})
  t.same(stopped, ['koa-floor:101'], 'the first process was stopped')
  t.same(world.systems.get('koa-floor')?.pids, [102], 'the new process is the one measured')
  await restartSystem(world, 'koa-floor', () => {})
  t.same(stopped, ['koa-floor:101', 'koa-floor:102'])
  t.same(world.systems.get('koa-floor')?.pids, [103])
})

void t.test('a system that does not start again leaves the run, with the reason', async (t) => {
  const stopped: string[] = []
  const lines: string[] = []
  let starts = 0
  const start = async () => {
    if (++starts > 1) throw new Error('port in use\nstack')
    return fakeSystem('gw-main', 7, stopped)
  }
  const world = worldWith('gw-main', start, await start())
  await restartSystem(world, 'gw-main', (line) => lines.push(line))
  t.same(stopped, ['gw-main:7'])
  t.notOk(world.systems.has('gw-main'), 'no stale system is measured')
  t.equal(world.unavailable.get('gw-main'), 'failed to start again: Error: port in use')
  t.match(lines[0], /^! gw-main: Error: port in use/)
})

void t.test('a system without a starter (the upstream) is left running', async (t) => {
  const stopped: string[] = []
  const upstream = fakeSystem('upstream', 9, stopped)
  const world = worldWith('koa-floor', async () => upstream, upstream)
  world.systems.set('upstream', upstream)
  await restartSystem(world, 'upstream', () => {})
  t.same(stopped, [])
  t.equal(world.systems.get('upstream'), upstream)
})
