import t from 'tap'
import { BoundLabels } from '../../../src/bound-labels.js'
import { Metrics } from '../../../src/metrics.js'

void t.test('each label combination is bound once and reused', async (t) => {
  const bound: string[][] = []
  const labels = new BoundLabels((values) => {
    bound.push(values)
    return { values }
  })
  const first = labels.get('GET', '/agents')
  t.equal(labels.get('GET', '/agents'), first)
  t.not(labels.get('GET', '/teams'), first)
  t.same(bound, [
    ['GET', '/agents'],
    ['GET', '/teams'],
  ])
})

void t.test('values are kept apart, not concatenated ambiguously', async (t) => {
  const labels = new BoundLabels((values) => values)
  t.not(labels.get('a b', 'c'), labels.get('a', 'b c'))
})

void t.test('past the cap the least recently used combination is bound again', async (t) => {
  let binds = 0
  const labels = new BoundLabels(() => ++binds, 2)
  labels.get('a')
  labels.get('b')
  labels.get('a')
  labels.get('c')
  t.equal(binds, 3)
  labels.get('a')
  t.equal(binds, 3, 'a was used recently: kept')
  labels.get('b')
  t.equal(binds, 4, 'b was the least recently used: bound again')
})

void t.test('the hot-path helpers record into the labelled series', async (t) => {
  const metrics = new Metrics({ collectProcessMetrics: false })
  metrics.countRequest('GET', '/agents', 200, 0.002)
  metrics.countRequest('GET', '/agents', 200, 0.002)
  metrics.countRequest('POST', '/agents', 401, 0.001)
  metrics.observeUpstream('/agents', 0.001)
  metrics.countAuthOutcome('service_account', 'allowed', 'ok')
  metrics.observeAuth('service_account', 0.00002)
  const text = await metrics.render()
  t.match(text, 'portcullis_http_requests_total{method="GET",route="/agents",status="200"} 2')
  t.match(text, 'portcullis_http_requests_total{method="POST",route="/agents",status="401"} 1')
  t.match(text, 'portcullis_http_request_duration_seconds_count{method="GET",route="/agents"} 2')
  t.match(text, 'portcullis_upstream_response_seconds_count{route="/agents"} 1')
  t.match(
    text,
    'portcullis_auth_outcomes_total{credential="service_account",outcome="allowed",reason="ok"} 1',
  )
  t.match(text, 'portcullis_auth_duration_seconds_count{credential="service_account"} 1')
})
