import t from 'tap'
import { parseArgs } from '../../../bench/lib/args.js'
import { selectIds, systemsNeeded, THROUGHPUT_SCENARIOS } from '../../../bench/scenarios/catalog.js'

void t.test(
  'defaults are the issue’s: 3 rounds × 10 s, 50 connections, access log on',
  async (t) => {
    const options = parseArgs([])
    if (options === 'help') throw new Error('unexpected help')
    t.match(options, { rounds: 3, durationS: 10, connections: 50, accessLog: true, quick: false })
    t.equal(options.sliceS, 0, 'each measurement in one piece')
    t.equal(options.restart, true, 'a new process of each system per round')
    t.equal(options.only, null)
  },
)

void t.test('--quick shortens, explicit options still win', async (t) => {
  const options = parseArgs([
    '--quick',
    '--rounds',
    '2',
    '--access-log=off',
    '--only',
    'direct, nginx',
  ])
  if (options === 'help') throw new Error('unexpected help')
  t.match(options, { quick: true, rounds: 2, durationS: 2, accessLog: false })
  t.same(options.only, ['direct', 'nginx'])
})

void t.test('bad options are errors; --help is help', async (t) => {
  t.throws(() => parseArgs(['--rounds', '0']), /positive/)
  t.throws(() => parseArgs(['--slice', '0']), /--slice needs a positive number/)
  t.match(parseArgs(['--slice=5']), { sliceS: 5 })
  t.match(parseArgs(['--no-restart']), { restart: false })
  t.match(parseArgs([]), { maxStealCores: 0.1 })
  t.match(parseArgs(['--max-steal', '0.25']), { maxStealCores: 0.25 })
  t.throws(() => parseArgs(['--max-steal', '-1']), /--max-steal needs a number of cores/)
  t.match(
    parseArgs(['--cpu-prof']),
    { restart: false, cpuProfile: true },
    'a profile is of one process',
  )
  t.throws(() => parseArgs(['--access-log', 'maybe']), /on or off/)
  t.throws(() => parseArgs(['--frobnicate']), /unknown option/)
  t.equal(parseArgs(['--help']), 'help')
})

void t.test('--only selects ids and prefixes, refuses unknown names', async (t) => {
  t.same(selectIds(['nginx', 'direct']), ['direct', 'nginx'], 'catalog order kept')
  t.same(selectIds(['pc-rs256*']), ['pc-rs256-same', 'pc-rs256-fresh'])
  t.throws(() => selectIds(['nope']), /unknown scenario "nope"/)
  t.equal(selectIds(null).length > 10, true)
})

void t.test('systems needed follow the scenarios and phases', async (t) => {
  t.same([...systemsNeeded(['direct'])], ['upstream'])
  const needed = systemsNeeded(['flood', 'pc-rs256-fresh', 'haproxy-jwt'])
  t.ok(needed.has('gw-main') && needed.has('gw-rs256') && needed.has('haproxy-jwt'))
  t.notOk(needed.has('nginx'))
  t.same(
    [...systemsNeeded(['latency'])],
    ['upstream', 'gw-main', 'koa-floor'],
    'the latency phase measures the Koa floor beside the gateway',
  )
})

void t.test('issue 23’s rows: Koa’s 401 set on the response, the Fastify peer', async (t) => {
  t.same(selectIds(['koa-floor*']), ['koa-floor', 'koa-floor-401', 'koa-floor-401-set'])
  t.same([...systemsNeeded(['koa-floor-401-set'])], ['upstream', 'koa-floor'])
  t.same([...systemsNeeded(['fastify-rs256-same'])], ['upstream', 'fastify-rs256'])
  const peer = THROUGHPUT_SCENARIOS.find((scenario) => scenario.id === 'fastify-rs256-same')
  const gateway = THROUGHPUT_SCENARIOS.find((scenario) => scenario.id === 'pc-rs256-same')
  t.equal(peer?.credential, gateway?.credential, 'the same RS256 token as the gateway’s row')
  t.equal(peer?.path, gateway?.path)
  const set = THROUGHPUT_SCENARIOS.find((scenario) => scenario.id === 'koa-floor-401-set')
  t.same([set?.path, set?.expectStatus], ['/local-401-set', 401])
})
