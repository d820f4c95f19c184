/**
 * The Grafana dashboard, described as rows of panels and laid out here, so that the JSON in
 * deploy/grafana/portcullis-dashboard.json (written by scripts/gen-ops-files.ts) never needs
 * hand-placed grid positions. Every query uses only metrics listed in docs/metrics.md (a test
 * checks it).
 */

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' }
/** The selector every query starts from: the job and instance variables. */
const S = 'job=~"$job", instance=~"$instance"'
const RATE = '$__rate_interval'

interface Query {
  readonly expr: string
  readonly legend: string
}

interface PanelSpec {
  readonly title: string
  readonly description: string
  readonly unit: string
  readonly queries: readonly Query[]
  /** 8 of 24 columns unless given. */
  readonly width?: number
  readonly stack?: boolean
}

interface RowSpec {
  readonly title: string
  readonly panels: readonly PanelSpec[]
}

const rate = (metric: string, matchers = ''): string =>
  `rate(${metric}{${S}${matchers === '' ? '' : `, ${matchers}`}}[${RATE}])`

const sumRate = (metric: string, matchers = '', by = ''): string =>
  `sum${by === '' ? '' : ` by (${by})`} (${rate(metric, matchers)})`

const quantile = (q: number, histogram: string, by = ''): string =>
  `histogram_quantile(${q}, sum by (${by === '' ? 'le' : `${by}, le`}) (${rate(`${histogram}_bucket`)}))`

const status = (code: string, legend: string): Query => ({
  expr: sumRate('portcullis_http_requests_total', `status=~"${code}"`),
  legend,
})

const ROWS: readonly RowSpec[] = [
  {
    title: 'Traffic',
    panels: [
      {
        title: 'Request rate by status',
        description: 'Requests answered per second, by status code.',
        unit: 'reqps',
        stack: true,
        queries: [
          { expr: sumRate('portcullis_http_requests_total', '', 'status'), legend: '{{status}}' },
        ],
      },
      {
        title: 'Request rate by route family',
        description: 'Requests per second by route family (first path segment; never raw paths).',
        unit: 'reqps',
        stack: true,
        queries: [
          { expr: sumRate('portcullis_http_requests_total', '', 'route'), legend: '{{route}}' },
        ],
      },
      {
        title: 'Error rates',
        description:
          '401 (no or bad credential), 403 (scope), 429 (throttled), 503 (store or upstream unavailable) and all 5xx.',
        unit: 'reqps',
        queries: [
          status('401', '401'),
          status('403', '403'),
          status('429', '429'),
          status('503', '503'),
          status('5..', '5xx'),
        ],
      },
      {
        title: '5xx ratio',
        description:
          'Share of responses that are 5xx (the PortcullisHigh5xxRate alert fires above 5%).',
        unit: 'percentunit',
        queries: [
          {
            expr: `${sumRate('portcullis_http_requests_total', 'status=~"5.."')} / ${sumRate('portcullis_http_requests_total')}`,
            legend: '5xx ratio',
          },
        ],
      },
      {
        title: 'Requests in flight',
        description: 'Requests being processed, per instance.',
        unit: 'short',
        queries: [
          {
            expr: `sum by (instance) (portcullis_http_requests_in_flight{${S}})`,
            legend: '{{instance}}',
          },
        ],
      },
      {
        title: 'Open WebSockets',
        description: 'Proxied WebSocket connections open now.',
        unit: 'short',
        queries: [
          { expr: `sum(portcullis_websocket_connections{${S}})`, legend: 'open' },
          {
            expr: sumRate('portcullis_websocket_upgrades_total', '', 'outcome'),
            legend: 'upgrades {{outcome}} /s',
          },
        ],
      },
    ],
  },
  {
    title: 'Latency',
    panels: [
      {
        title: 'Request latency (whole request)',
        description: 'Arrival to end of response, gateway and upstream together.',
        unit: 's',
        queries: [0.5, 0.95, 0.99].map((q) => ({
          expr: quantile(q, 'portcullis_http_request_duration_seconds'),
          legend: `p${q * 100}`,
        })),
      },
      {
        title: 'Gateway overhead vs upstream',
        description:
          'Authentication and authorization time (the gateway overhead) against the time the upstream took to answer.',
        unit: 's',
        queries: [0.5, 0.95, 0.99].flatMap((q) => [
          { expr: quantile(q, 'portcullis_auth_duration_seconds'), legend: `gateway p${q * 100}` },
          {
            expr: quantile(q, 'portcullis_upstream_response_seconds'),
            legend: `upstream p${q * 100}`,
          },
        ]),
      },
      {
        title: 'Gateway overhead by credential (p99)',
        description:
          'p99 authentication time per credential kind; store lookups and JWKS reads show here.',
        unit: 's',
        queries: [
          {
            expr: quantile(0.99, 'portcullis_auth_duration_seconds', 'credential'),
            legend: '{{credential}}',
          },
        ],
      },
    ],
  },
  {
    title: 'Authentication',
    panels: [
      {
        title: 'Auth outcomes by credential',
        description: 'Decisions per second, by credential kind and outcome.',
        unit: 'reqps',
        stack: true,
        queries: [
          {
            expr: sumRate('portcullis_auth_outcomes_total', '', 'credential, outcome'),
            legend: '{{credential}} {{outcome}}',
          },
        ],
      },
      {
        title: 'Denials by reason',
        description: 'Why requests are refused: the ten most frequent reasons.',
        unit: 'reqps',
        queries: [
          {
            expr: `topk(10, ${sumRate('portcullis_auth_outcomes_total', 'outcome="denied"', 'credential, reason')})`,
            legend: '{{credential}} {{reason}}',
          },
        ],
      },
      {
        title: 'JWT cache hit ratio',
        description: 'Verified-JWT cache hits over lookups.',
        unit: 'percentunit',
        queries: [
          {
            expr: `${sumRate('portcullis_jwt_cache_lookups_total', 'result="hit"')} / ${sumRate('portcullis_jwt_cache_lookups_total')}`,
            legend: 'hit ratio',
          },
        ],
      },
      {
        title: 'JWKS reloads',
        description: 'JWKS file reads by result and trigger; failed reads keep the previous keys.',
        unit: 'short',
        queries: [
          {
            expr: `sum by (result, trigger) (increase(portcullis_jwks_reloads_total{${S}}[${RATE}]))`,
            legend: '{{result}} ({{trigger}})',
          },
        ],
      },
      {
        title: 'Config reloads',
        description:
          'Config file reloads (SIGHUP or file change): applied, invalid (refused, the running config stays) or failed.',
        unit: 'short',
        queries: [
          {
            expr: `sum by (result) (increase(portcullis_config_reloads_total{${S}}[${RATE}]))`,
            legend: '{{result}}',
          },
        ],
      },
      {
        title: 'JWKS keys',
        description:
          'Usable keys per instance and source: file (auth.jwks_file) and remote (auth.jwks_url / auth.oidc_issuer, keys in their removal grace included).',
        unit: 'short',
        queries: [{ expr: `portcullis_jwks_keys{${S}}`, legend: '{{source}} {{instance}}' }],
      },
      {
        title: 'Remote JWKS fetches',
        description:
          "Fetches of the identity provider's key set by outcome: updated, unchanged, not_modified (304), or why it failed. Failures keep the last good key set in use.",
        unit: 'short',
        stack: true,
        queries: [
          {
            expr: `sum by (outcome) (increase(portcullis_jwks_fetches_total{${S}}[${RATE}]))`,
            legend: '{{outcome}}',
          },
        ],
      },
      {
        title: 'Remote JWKS age and state',
        description:
          'Seconds since the provider last confirmed the key set, per instance (normally below auth.jwks_refresh_max_seconds); 1 while stale (fetches fail, the last good set is served) or unavailable (JWTs get 503). The PortcullisJwksStale and PortcullisJwksUnavailable alerts fire on these.',
        unit: 's',
        queries: [
          {
            expr: `portcullis_jwks_age_seconds{${S}, source="remote"}`,
            legend: 'age {{instance}}',
          },
          {
            expr: `portcullis_jwks_state{${S}, state!="fresh"} == 1`,
            legend: '{{state}} {{instance}}',
          },
        ],
      },
      {
        title: 'Remote JWKS fetch latency (p99)',
        description: 'Time a fetch of the key set took (discovery included), by result.',
        unit: 's',
        queries: [
          {
            expr: quantile(0.99, 'portcullis_jwks_fetch_duration_seconds', 'result'),
            legend: '{{result}}',
          },
        ],
      },
    ],
  },
  {
    title: 'Service accounts',
    panels: [
      {
        title: 'Cache hit ratio',
        description: 'svc_pat_ verifications answered without the store.',
        unit: 'percentunit',
        queries: [
          {
            expr: `${sumRate('portcullis_service_account_cache_hits_total')} / (${sumRate('portcullis_service_account_cache_hits_total')} + ${sumRate('portcullis_service_account_cache_misses_total')})`,
            legend: 'hit ratio',
          },
        ],
      },
      {
        title: 'Verifications by reason',
        description:
          'svc_pat_ verifications: ok, or the refusal reason; service_account.unavailable means 503 because the store did not answer.',
        unit: 'reqps',
        stack: true,
        queries: [
          {
            expr: sumRate('portcullis_service_account_verifications_total', '', 'reason'),
            legend: '{{reason}}',
          },
        ],
      },
      {
        title: 'Throttled requests',
        description: '429s from the failed-lookup throttle (per client address).',
        unit: 'reqps',
        queries: [
          {
            expr: sumRate('portcullis_service_account_throttled_requests_total'),
            legend: 'throttled',
          },
        ],
      },
      {
        title: 'Store latency (p99)',
        description: 'Store operation time by operation.',
        unit: 's',
        queries: [
          {
            expr: quantile(
              0.99,
              'portcullis_service_account_store_query_duration_seconds',
              'operation',
            ),
            legend: '{{operation}}',
          },
        ],
      },
      {
        title: 'Store errors',
        description: 'Failed store operations; unavailable = unreachable or timed out.',
        unit: 'ops',
        queries: [
          {
            expr: sumRate('portcullis_service_account_store_errors_total', '', 'operation, kind'),
            legend: '{{operation}} {{kind}}',
          },
        ],
      },
      {
        title: 'Revocations and evictions',
        description: 'Revocation notifications received, and cache entries dropped by reason.',
        unit: 'ops',
        queries: [
          {
            expr: sumRate('portcullis_service_account_revocation_notifications_total'),
            legend: 'notifications',
          },
          {
            expr: sumRate('portcullis_service_account_cache_evictions_total', '', 'reason'),
            legend: 'evicted: {{reason}}',
          },
        ],
      },
    ],
  },
  {
    title: 'Audit trail',
    panels: [
      {
        title: 'Audit events by type',
        description:
          'Audit events recorded per second, by type (mint, revoke, first_use, use_from_new_address, refused, throttled, rotation, prune).',
        unit: 'ops',
        stack: true,
        queries: [
          { expr: sumRate('portcullis_audit_events_total', '', 'type'), legend: '{{type}}' },
        ],
      },
      {
        title: 'Refused tokens per account (top 10)',
        description:
          'Expired or revoked tokens of a known account presented per second: a token still tried after its revocation may have leaked (alert PortcullisRefusedTokenSpike). (unknown): tokens no account has; (other): accounts past the first 100 names a process counted.',
        unit: 'reqps',
        queries: [
          {
            expr: `topk(10, ${sumRate('portcullis_audit_refused_tokens_total', '', 'account')})`,
            legend: '{{account}}',
          },
        ],
      },
      {
        title: 'Audit write queue',
        description:
          'Events waiting to be written (they wait while the store is down), events dropped when the queue was full, and failed writes.',
        unit: 'short',
        queries: [
          { expr: `sum(portcullis_audit_queue_depth{${S}})`, legend: 'queued' },
          {
            expr: sumRate('portcullis_audit_events_dropped_total', '', 'type'),
            legend: 'dropped/s: {{type}}',
          },
          {
            expr: sumRate('portcullis_audit_write_failures_total'),
            legend: 'write failures/s',
          },
        ],
      },
    ],
  },
  {
    title: 'Upstream and process',
    panels: [
      {
        title: 'Upstream errors',
        description:
          'Requests that failed to reach the upstream: dns, refused, unreachable, reset, tls, other (502) or timeout (504). Readiness probes are not counted.',
        unit: 'ops',
        stack: true,
        queries: [
          { expr: sumRate('portcullis_upstream_errors_total', '', 'kind'), legend: '{{kind}}' },
        ],
      },
      {
        title: 'CPU',
        description: 'CPU seconds per second, per instance.',
        unit: 'short',
        queries: [
          {
            expr: `sum by (instance) (${rate('portcullis_process_cpu_seconds_total')})`,
            legend: '{{instance}}',
          },
        ],
      },
      {
        title: 'Memory',
        description: 'Resident memory and V8 heap used, per instance.',
        unit: 'bytes',
        queries: [
          { expr: `portcullis_process_resident_memory_bytes{${S}}`, legend: 'rss {{instance}}' },
          { expr: `portcullis_nodejs_heap_size_used_bytes{${S}}`, legend: 'heap {{instance}}' },
        ],
      },
      {
        title: 'Event-loop lag (p99)',
        description: 'A busy event loop delays every request.',
        unit: 's',
        queries: [
          { expr: `portcullis_nodejs_eventloop_lag_p99_seconds{${S}}`, legend: '{{instance}}' },
        ],
      },
    ],
  },
]

const PANEL_HEIGHT = 8

function panel(
  spec: PanelSpec,
  id: number,
  gridPos: Record<string, number>,
): Record<string, unknown> {
  return {
    id,
    type: 'timeseries',
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos,
    fieldConfig: {
      defaults: {
        unit: spec.unit,
        custom: {
          fillOpacity: spec.stack === true ? 30 : 10,
          stacking: { mode: spec.stack === true ? 'normal' : 'none' },
        },
      },
      overrides: [],
    },
    options: {
      legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    targets: spec.queries.map((query, index) => ({
      refId: String.fromCharCode(65 + index),
      datasource: DATASOURCE,
      expr: query.expr,
      legendFormat: query.legend,
    })),
  }
}

function layout(): Record<string, unknown>[] {
  const panels: Record<string, unknown>[] = []
  let id = 1
  let y = 0
  for (const row of ROWS) {
    panels.push({
      id: id++,
      type: 'row',
      title: row.title,
      collapsed: false,
      panels: [],
      gridPos: { h: 1, w: 24, x: 0, y },
    })
    y += 1
    let x = 0
    for (const spec of row.panels) {
      const w = spec.width ?? 8
      if (x + w > 24) {
        x = 0
        y += PANEL_HEIGHT
      }
      panels.push(panel(spec, id++, { h: PANEL_HEIGHT, w, x, y }))
      x += w
    }
    y += PANEL_HEIGHT
  }
  return panels
}

function variable(name: string, label: string, query: string): Record<string, unknown> {
  return {
    name,
    label,
    type: 'query',
    datasource: DATASOURCE,
    query: { query, refId: name },
    definition: query,
    refresh: 2,
    includeAll: true,
    multi: true,
    allValue: '.*',
    current: { selected: true, text: ['All'], value: ['$__all'] },
    sort: 1,
  }
}

export function grafanaDashboard(): Record<string, unknown> {
  return {
    uid: 'portcullis',
    title: 'Portcullis',
    description:
      'Portcullis authentication gateway: traffic, errors, latency (gateway overhead vs upstream), auth outcomes, service accounts, JWKS (file and remote), upstream.',
    tags: ['portcullis', 'agentos', 'gateway'],
    timezone: 'browser',
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: {
      list: [
        {
          name: 'datasource',
          label: 'Data source',
          type: 'datasource',
          query: 'prometheus',
          current: {},
          refresh: 1,
        },
        variable('job', 'Job', 'label_values(portcullis_http_requests_total, job)'),
        variable(
          'instance',
          'Instance',
          'label_values(portcullis_http_requests_total{job=~"$job"}, instance)',
        ),
      ],
    },
    annotations: { list: [] },
    panels: layout(),
  }
}
