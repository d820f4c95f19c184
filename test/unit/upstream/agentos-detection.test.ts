/**
 * Which AgentOS line the upstream's own answers name: agno's release number when /info has one,
 * else the shape of /info and the routes of /openapi.json; contradictions and silence are
 * unreadable, versions outside the catalogues unsupported.
 */
import t from 'tap'
import {
  isSourceBuild,
  lineOfRelease,
  parseAgnoRelease,
} from '../../../src/upstream/agno-release.js'
import {
  decideFromInfo,
  decideFromRoutes,
  type ShapeQuestion,
} from '../../../src/upstream/agentos-detection.js'
import {
  describeReport,
  pinMismatch,
  refusalAtStart,
} from '../../../src/upstream/agentos-reports.js'

void t.test('agno release numbers and the line each falls in', async (t) => {
  for (const [version, line] of [
    ['2.9.0', '2.9'],
    ['2.9.12', '2.9'],
    ['2.9.1.post1', '2.9'],
    ['2.10.0', '2.9'],
    ['3.0.0', '3.0'],
    ['3.0.0a1', '3.0'],
    ['3.0.0a3', '3.0'],
    ['3.0.0rc2', '3.0'],
    ['3.0.0b1', '3.0'],
    ['3.0.4.dev1', '3.0'],
    ['3.0.1+local.7', '3.0'],
    ['2.8.9', 'older'],
    ['1.7.0', 'older'],
    ['0.0.1', 'older'],
    ['3.1.0', 'newer'],
    ['3.1.0a1', 'newer'],
    ['4.0.0', 'newer'],
  ] as const) {
    const release = parseAgnoRelease(version)
    if (release === undefined) {
      t.fail(`${version} parses`)
      continue
    }
    t.equal(lineOfRelease(release), line, `${version} → ${line}`)
    t.equal(release.text, version)
  }
  for (const text of ['', '3.0', 'v3.0.0', '3.0.0-alpha', 'dev', '3.0.0 ', 3, null, undefined])
    t.equal(parseAgnoRelease(text), undefined, `${JSON.stringify(text)} is no release number`)
  const source = parseAgnoRelease('0.0.0')
  const patch = parseAgnoRelease('0.0.1')
  t.ok(source !== undefined && isSourceBuild(source), '0.0.0: run from source')
  t.ok(patch !== undefined && !isSourceBuild(patch))
})

void t.test('/info with a release number decides', async (t) => {
  t.same(decideFromInfo({ agno_version: '2.9.0', auth_mode: 'none', agent_count: 1 }), {
    kind: 'line',
    line: '2.9',
    agnoVersion: '2.9.0',
    basis: 'release',
  })
  t.same(decideFromInfo({ agno_version: '3.0.0a3', os_version: '1.0.0' }), {
    kind: 'line',
    line: '3.0',
    agnoVersion: '3.0.0a3',
    basis: 'release',
  })
  t.same(decideFromInfo({ agno_version: '3.0.0' }), {
    kind: 'line',
    line: '3.0',
    agnoVersion: '3.0.0',
    basis: 'release',
  })
  t.same(decideFromInfo({ agno_version: '3.1.0', os_version: '1.0.0' }), {
    kind: 'unsupported',
    agnoVersion: '3.1.0',
    direction: 'newer',
  })
  t.same(decideFromInfo({ agno_version: '2.8.0' }), {
    kind: 'unsupported',
    agnoVersion: '2.8.0',
    direction: 'older',
  })
  t.match(decideFromInfo({ agno_version: '2.9.3', os_version: '1.0.0' }), {
    kind: 'unreadable',
    why: /contradictory: agno_version 2\.9\.3 beside os_version/,
  })
})

void t.test('/info that is no object is unreadable', async (t) => {
  for (const body of [undefined, null, 'text', 3, ['2.9.0']]) {
    t.same(
      decideFromInfo(body),
      { kind: 'unreadable', why: 'GET /info did not answer a JSON object' },
      JSON.stringify(body),
    )
  }
})

void t.test('no release number: the shape must decide', async (t) => {
  t.same(decideFromInfo({ agno_version: '0.0.0', os_version: '1.0.0' }), {
    kind: 'shape',
    agnoVersion: '0.0.0',
    osVersion: true,
  })
  t.same(decideFromInfo({ name: 'AgentOS' }), {
    kind: 'shape',
    agnoVersion: undefined,
    osVersion: false,
  })
  t.same(decideFromInfo({ agno_version: 'dev\u0000build' }), {
    kind: 'shape',
    agnoVersion: 'dev?build',
    osVersion: false,
  })
  t.equal(
    (decideFromInfo({ agno_version: 'x'.repeat(500) }) as ShapeQuestion).agnoVersion?.length,
    40,
    'what is shown of it is bounded',
  )
})

void t.test('the routes decide when /info does not', async (t) => {
  const source: ShapeQuestion = { kind: 'shape', agnoVersion: '0.0.0', osVersion: false }
  const threeZero = { kind: 'line', line: '3.0', agnoVersion: '0.0.0', basis: 'shape' }
  const twoNine = { kind: 'line', line: '2.9', agnoVersion: '0.0.0', basis: 'shape' }
  t.same(decideFromRoutes({ ...source, osVersion: true }, undefined), threeZero, 'os_version')
  t.same(decideFromRoutes({ ...source, osVersion: true }, ['/agents']), threeZero)
  for (const route of [
    '/components/{component_id}/restore',
    '/components/{id}/restore/',
    '/metrics/refresh/status',
    '/queue/jobs',
    '/queue/jobs/{job_id}',
    '/queue/stats',
    '/sessions/{session_id}/media/{storage_key}',
  ])
    t.same(decideFromRoutes(source, ['/health', route]), threeZero, route)
  for (const route of ['/models', '/a2a/message/send', '/custom-a2a/message/send'])
    t.same(decideFromRoutes(source, ['/health', '/agents', route]), twoNine, route)

  t.match(decideFromRoutes(source, ['/models', '/queue/jobs']), {
    kind: 'unreadable',
    why: 'agno_version 0.0.0, and the signs contradict each other: /queue/jobs (3.0) beside /models (2.9)',
  })
  t.match(decideFromRoutes({ ...source, osVersion: true }, ['/models']), {
    kind: 'unreadable',
    why: /os_version in \/info \(3\.0\) beside \/models \(2\.9\)/,
  })
  t.same(decideFromRoutes(source, ['/health', '/agents']), {
    kind: 'unreadable',
    why: 'agno_version 0.0.0, and no route shows which line (2.9, 3.0) it is',
  })
  t.same(decideFromRoutes({ ...source, agnoVersion: undefined }, undefined), {
    kind: 'unreadable',
    why: 'agno_version absent, and GET /openapi.json could not be read to show which line (2.9, 3.0) it is',
  })
})

void t.test('what the upstream reported, in words', async (t) => {
  t.equal(
    describeReport({ kind: 'line', line: '3.0', agnoVersion: '3.0.0a3', basis: 'release' }),
    'agno 3.0.0a3',
  )
  t.equal(
    describeReport({ kind: 'line', line: '3.0', agnoVersion: '0.0.0', basis: 'shape' }),
    'agno 0.0.0, 3.0 by the shape of /info and /openapi.json',
  )
  t.equal(
    describeReport({ kind: 'line', line: '2.9', agnoVersion: undefined, basis: 'shape' }),
    'agno (no agno_version), 2.9 by the shape of /info and /openapi.json',
  )
  t.equal(
    pinMismatch('3.0', { kind: 'line', line: '2.9', agnoVersion: '2.9.0', basis: 'release' }),
    'upstream.agentos_version pins 3.0, but the upstream reports agno 2.9.0: unless auth.deny_unmapped_routes is set, routes the 3.0 catalogue does not know are denied',
  )
  const url = 'http://user:secret@agentos.internal:7777/base'
  t.equal(
    refusalAtStart({ kind: 'unsupported', agnoVersion: '3.1.0', direction: 'newer' }, url),
    'upstream.agentos_version, PORTCULLIS_AGENTOS_VERSION is auto, and the upstream at http://agentos.internal:7777 reports agno 3.1.0, newer than every AgentOS line with a route catalogue (2.9, 3.0): run a Portcullis release that supports it, or pin upstream.agentos_version to "3.0" to run with that line\'s catalogue (routes it does not know are then denied)',
  )
  t.equal(
    refusalAtStart({ kind: 'unsupported', agnoVersion: '2.8.0', direction: 'older' }, url),
    'upstream.agentos_version, PORTCULLIS_AGENTOS_VERSION is auto, and the upstream at http://agentos.internal:7777 reports agno 2.8.0, older than every AgentOS line with a route catalogue (2.9, 3.0): upgrade AgentOS to 2.9 or later, or pin upstream.agentos_version to "2.9" to run with that line\'s catalogue (routes it does not know are then denied)',
  )
  t.equal(
    refusalAtStart({ kind: 'unreadable', why: 'GET /info answered 404' }, url),
    'upstream.agentos_version, PORTCULLIS_AGENTOS_VERSION is auto, and the upstream at http://agentos.internal:7777 reports an answer that does not say which AgentOS it is (GET /info answered 404): check that upstream.url points at AgentOS, or pin upstream.agentos_version to the line it runs ("2.9" or "3.0") to run with that line\'s catalogue (routes it does not know are then denied)',
  )
})
