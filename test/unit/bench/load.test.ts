import { createPublicKey } from 'node:crypto'
import { compactVerify, importSPKI } from 'jose'
import t from 'tap'
import { benchClaims, generateSigningKey, signJwt } from '../../../bench/lib/jwt.js'
import { packageOf, selfTimeByPackage, topSelfTime } from '../../../bench/lib/profile.js'
import { parseWrkOutput, WRK_MARKER, wrkScript } from '../../../bench/load/wrk-script.js'

void t.test('wrk script: static headers once, rotating tokens from an offset', async (t) => {
  const fixed = wrkScript({ headers: { Authorization: 'Bearer "a"' } })
  t.match(fixed, /wrk\.headers\["Authorization"\] = "Bearer \\"a\\""/)
  t.notMatch(fixed, /request = function/, 'no per-request Lua for static headers')
  t.match(fixed, /done = function/)
  const rotating = wrkScript({ headers: {}, tokensFile: '/tmp/t.txt', tokenOffset: 41.7 })
  t.match(rotating, /io\.lines\("\/tmp\/t\.txt"\)/)
  t.match(rotating, /local index = 41 % #tokens/)
  t.match(rotating, /request = function/)
})

void t.test('wrk output parsing', async (t) => {
  const out = `Running 10s test\n${WRK_MARKER}{"requests":1000,"duration_us":2000000,"status_errors":3,"socket_errors":1,"p50_us":500,"p99_us":2500}\n`
  t.same(parseWrkOutput(out), {
    requests: 1000,
    durationS: 2,
    unexpected: 3,
    errors: 1,
    p50Us: 500,
    p99Us: 2500,
  })
  t.throws(() => parseWrkOutput('usage: wrk …'), /no result/)
})

void t.test('wrk counts answers per status only when asked', async (t) => {
  const plain = wrkScript({ headers: {} })
  t.notMatch(plain, /response = function/, 'no per-response Lua by default')
  t.match(plain, /counted_statuses = function\(\) return "" end/)
  const counting = wrkScript({ headers: {}, countStatuses: true })
  t.match(counting, /response = function\(status, headers, body\)/)
  t.match(counting, /thread:get\("statuses"\)/)
  t.match(counting, /setup = function\(thread\)/)

  const out = `${WRK_MARKER}{"requests":100,"duration_us":1000000,"status_errors":100,"socket_errors":0,"p50_us":5,"p99_us":9,"statuses":{"401":3,"429":97}}\n`
  t.match(parseWrkOutput(out, 429), { unexpected: 3, statuses: { '401': 3, '429': 97 } })
  t.match(parseWrkOutput(out), { unexpected: 100 }, 'without an expected status, wrk’s count')
})

void t.test('benchmark JWTs verify with jose for each algorithm', async (t) => {
  for (const alg of ['RS256', 'ES256', 'HS256'] as const) {
    const key = generateSigningKey(alg)
    const token = signJwt(key, benchClaims(7, 1_000))
    const verifyKey =
      alg === 'HS256'
        ? new TextEncoder().encode(key.verification)
        : await importSPKI(
            createPublicKey(key.verification).export({ type: 'spki', format: 'pem' }).toString(),
            alg,
          )
    const { payload, protectedHeader } = await compactVerify(token, verifyKey)
    t.equal(protectedHeader.alg, alg)
    t.match(JSON.parse(new TextDecoder().decode(payload)), { jti: 'bench-7', exp: 4_600 })
  }
})

void t.test('profile summaries by function and by package', async (t) => {
  const profile = {
    startTime: 0,
    endTime: 100,
    nodes: [
      { id: 1, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
      {
        id: 2,
        callFrame: {
          functionName: 'write',
          url: 'file:///x/node_modules/pino/lib/a.js',
          lineNumber: 9,
        },
      },
      {
        id: 3,
        callFrame: { functionName: 'auth', url: 'file:///x/dist/auth/pipeline.js', lineNumber: 0 },
      },
      {
        id: 4,
        callFrame: {
          functionName: 'r',
          url: 'file:///x/node_modules/@pinojs/redact/i.js',
          lineNumber: 1,
        },
      },
    ],
    samples: [1, 1, 2, 2, 2, 3, 4, 4],
  }
  const top = topSelfTime(profile)
  t.same(
    top.map((e) => [e.name, e.where, Math.round(e.percent)]),
    [
      ['write', 'node_modules/pino/lib/a.js:10', 50],
      ['r', 'node_modules/@pinojs/redact/i.js:2', 33],
      ['auth', 'dist/auth/pipeline.js:1', 17],
    ],
  )
  t.same(
    selfTimeByPackage(profile).map((e) => e.name),
    ['pino', '@pinojs/redact', 'portcullis auth/'],
  )
  t.equal(packageOf('node:internal/streams/readable', 'x'), 'node internal/streams')
  t.equal(packageOf('', '(garbage collector)'), '(garbage collector)')
})
