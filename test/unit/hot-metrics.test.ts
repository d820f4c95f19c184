import t from 'tap'
import { Counter, Histogram, Registry } from 'prom-client'
import { HotCounter, HotHistogram } from '../../src/hot-metrics.js'
import { Metrics } from '../../src/metrics.js'

const BUCKETS = [0.001, 0.01, 0.1, 1]

interface Pair<C, H> {
  readonly counter: C
  readonly histogram: H
}

/** The same observations through prom-client's own metrics and the hot ones, as exposed text. */
async function exposedBoth(
  record: (
    prom: Pair<Counter, Histogram>,
    hot: Pair<HotCounter<string>, HotHistogram<string>>,
  ) => void,
): Promise<{ prom: string; hot: string }> {
  const promRegistry = new Registry()
  const hotRegistry = new Registry()
  const counter = { name: 'x_total', help: 'x', labelNames: ['method', 'route', 'status'] }
  const histogram = {
    name: 'y_seconds',
    help: 'y',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
  }
  record(
    {
      counter: new Counter({ ...counter, registers: [promRegistry] }),
      histogram: new Histogram({ ...histogram, registers: [promRegistry] }),
    },
    {
      counter: new HotCounter({ ...counter, registers: [hotRegistry] }),
      histogram: new HotHistogram({ ...histogram, registers: [hotRegistry] }),
    },
  )
  return { prom: await promRegistry.metrics(), hot: await hotRegistry.metrics() }
}

void t.test(
  'the exposition is exactly what prom-client gives for the same observations',
  async (t) => {
    const observations: [string, string, string, number][] = [
      ['GET', '/agents', '200', 0.0004],
      ['GET', '/agents', '200', 0.001],
      ['GET', '/agents', '401', 0.05],
      ['POST', '/teams/{team_id}', '200', 2.5],
      ['GET', 'a "quoted" \\ route', '500', 0.1],
    ]
    const { prom, hot } = await exposedBoth((p, h) => {
      for (const [method, route, status, seconds] of observations) {
        p.counter.labels(method, route, status).inc()
        p.histogram.labels(method, route).observe(seconds)
        h.counter.inc(method, route, status)
        h.histogram.observe(seconds, method, route)
      }
    })
    t.equal(hot, prom)
    t.match(hot, 'x_total{method="GET",route="/agents",status="200"} 2')
    t.match(hot, 'y_seconds_bucket{le="0.001",method="GET",route="/agents"} 2')
    t.match(hot, 'y_seconds_bucket{le="+Inf",method="POST",route="/teams/{team_id}"} 1')
  },
)

void t.test('label values are kept apart, not concatenated ambiguously', async (t) => {
  const registry = new Registry()
  const counter = new HotCounter({
    name: 'z_total',
    help: 'z',
    labelNames: ['a', 'b'],
    registers: [registry],
  })
  counter.inc('a b', 'c')
  counter.inc('a', 'b c')
  const text = await registry.metrics()
  t.match(text, 'z_total{a="a b",b="c"} 1')
  t.match(text, 'z_total{a="a",b="b c"} 1')
})

void t.test('reset forgets every series', async (t) => {
  const registry = new Registry()
  const counter = new HotCounter({
    name: 'r_total',
    help: 'r',
    labelNames: ['a'],
    registers: [registry],
  })
  counter.inc('one')
  counter.reset()
  t.notMatch(await registry.metrics(), 'r_total{')
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

void t.test('a bound counter is exposed at zero and counts into the same series', async (t) => {
  const { prom, hot } = await exposedBoth((p, h) => {
    p.counter.inc({ method: 'GET', route: '/a', status: '200' }, 0)
    p.counter.inc({ method: 'GET', route: '/b', status: '401' }, 3)
    h.counter.bind('GET', '/a', '200')
    const bound = h.counter.bind('GET', '/b', '401')
    bound.inc()
    h.counter.inc('GET', '/b', '401')
    bound.inc()
  })
  t.equal(hot, prom)
})
