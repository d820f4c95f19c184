import { readFileSync } from 'node:fs'
import t from 'tap'
import { readCatalogue } from './metrics-catalogue.js'
import { checkPromql } from './promql-check.js'
import { projectPath } from '../../helpers/project-root.js'

const DASHBOARD = projectPath('deploy/grafana/portcullis-dashboard.json')

type Json = Record<string, unknown>
interface Grid {
  x: number
  y: number
  w: number
  h: number
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Json
const catalogue = readCatalogue()
const panels = dashboard.panels as Json[]
const graphs = panels.filter((panel) => panel.type !== 'row')

void t.test('the dashboard has the shape Grafana imports', async (t) => {
  t.equal(typeof dashboard.uid, 'string')
  t.ok((dashboard.uid as string).length <= 40, 'uid at most 40 characters')
  t.equal(typeof dashboard.title, 'string')
  t.type(dashboard.schemaVersion, 'number')
  t.ok(Array.isArray(panels) && graphs.length >= 15, `${graphs.length} graphs`)
  const ids = panels.map((panel) => panel.id)
  t.equal(new Set(ids).size, ids.length, 'panel ids are unique')
  for (const panel of panels) {
    const where = `panel ${String(panel.id)} ${String(panel.title)}`
    t.ok(Number.isInteger(panel.id), `${where}: integer id`)
    t.type(panel.title, 'string', `${where}: title`)
    const grid = panel.gridPos as Grid
    t.ok(
      grid.w >= 1 && grid.x >= 0 && grid.x + grid.w <= 24 && grid.h >= 1 && grid.y >= 0,
      `${where}: gridPos inside the 24-column grid`,
    )
  }
  for (const panel of graphs) {
    const where = `panel ${String(panel.title)}`
    t.same(panel.datasource, { type: 'prometheus', uid: '${datasource}' }, `${where}: datasource`)
    const targets = panel.targets as Json[]
    t.ok(targets.length > 0, `${where}: has queries`)
    const refIds = targets.map((target) => target.refId)
    t.equal(new Set(refIds).size, refIds.length, `${where}: unique refIds`)
  }
  const overlapping = graphs.filter((a, i) =>
    graphs.slice(i + 1).some((b) => {
      const [p, q] = [a.gridPos as Grid, b.gridPos as Grid]
      return p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h
    }),
  )
  t.same(overlapping, [], 'no two panels overlap')
  const variables = (dashboard.templating as { list: Json[] }).list.map((v) => v.name)
  t.same(variables, ['datasource', 'job', 'instance'])
})

void t.test('every query uses only documented metrics and labels', async (t) => {
  const expressions: [string, string][] = graphs.flatMap((panel) =>
    (panel.targets as Json[]).map((target): [string, string] => [
      String(panel.title),
      target.expr as string,
    ]),
  )
  for (const variable of (dashboard.templating as { list: Json[] }).list) {
    const query = variable.query as { query?: string } | string
    if (variable.type === 'query')
      expressions.push([`variable ${String(variable.name)}`, (query as { query: string }).query])
  }
  const used = new Set<string>()
  for (const [where, expr] of expressions) {
    const { problems, families } = checkPromql(expr, catalogue)
    t.same(problems, [], `${where}: ${expr}`)
    for (const family of families) used.add(family)
    if (!where.startsWith('variable'))
      t.match(expr, /job=~"\$job", instance=~"\$instance"/, `${where}: filtered by $job/$instance`)
  }
  for (const required of [
    'portcullis_http_requests_total',
    'portcullis_http_request_duration_seconds',
    'portcullis_auth_duration_seconds',
    'portcullis_upstream_response_seconds',
    'portcullis_auth_outcomes_total',
    'portcullis_service_account_cache_hits_total',
    'portcullis_service_account_cache_misses_total',
    'portcullis_service_account_throttled_requests_total',
    'portcullis_service_account_store_query_duration_seconds',
    'portcullis_service_account_store_errors_total',
    'portcullis_jwks_reloads_total',
    'portcullis_jwks_keys',
    'portcullis_service_account_revocation_notifications_total',
    'portcullis_websocket_connections',
    'portcullis_upstream_errors_total',
    'portcullis_audit_events_total',
    'portcullis_audit_refused_tokens_total',
  ])
    t.ok(used.has(required), `the dashboard shows ${required}`)
})

void t.test('the error panel shows 401, 403, 429, 503 and 5xx; latency p50/p95/p99', async (t) => {
  const allExpressions = graphs.flatMap((panel) =>
    (panel.targets as Json[]).map((target) => target.expr as string),
  )
  for (const code of ['401', '403', '429', '503', '5..'])
    t.ok(
      allExpressions.some((expr) => expr.includes(`status=~"${code}"`)),
      `a query selects status ${code}`,
    )
  const overhead = graphs.find((panel) => panel.title === 'Gateway overhead vs upstream')
  const exprs = ((overhead?.targets ?? []) as Json[]).map((target) => target.expr as string)
  for (const q of ['0.5', '0.95', '0.99'])
    for (const metric of [
      'portcullis_auth_duration_seconds',
      'portcullis_upstream_response_seconds',
    ])
      t.ok(
        exprs.some((expr) => expr.startsWith(`histogram_quantile(${q},`) && expr.includes(metric)),
        `overhead panel: ${metric} p${Number(q) * 100}`,
      )
})
