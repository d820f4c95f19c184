import t from 'tap'
import { stringify } from 'yaml'
import { ACCESS_LOG_OFF, ACCESS_LOG_ON } from '../../../bench/report/cpu-targets.js'
import { THROUGHPUT_SCENARIOS } from '../../../bench/scenarios/catalog.js'
import { appliedReloads, gatewayConfig } from '../../../bench/systems/gateway.js'
import { parseConfig } from '../../../src/config/load.js'

// The bench upstream answers every request with the same 100 bytes, so a gateway that asks it
// which AgentOS it is refuses to start: every Portcullis row of `npm run bench` was skipped.
void t.test('a bench gateway config is valid and pins the AgentOS line', async (t) => {
  const config = gatewayConfig(
    {
      name: 'main',
      upstreamUrl: 'http://127.0.0.1:7777',
      auth: { kind: 'security_key', key: 'k-1-security-key-8d2f6b0a4e9c7a1f3b5d' },
      store: { kind: 'embedded', dataDir: '/tmp/portcullis-bench-store' },
      cacheTtlSeconds: 30,
      cacheMaxEntries: 1000,
      accessLog: true,
    },
    8000,
    9000,
  )
  const parsed = parseConfig(stringify(config), 'bench', { env: {}, readFile: () => '' })
  t.equal(parsed.upstream.agentos_version, '2.9', 'no probe of an upstream that is no AgentOS')
  t.ok(
    parsed.service_accounts.failed_lookup_window_seconds >= 3_600,
    'a throttled address stays throttled for a whole run (the 429 rows answer only 429)',
  )
})

void t.test('the reloads a gateway counts as applied are read from its metrics', async (t) => {
  t.equal(appliedReloads('# HELP portcullis_up 1\nportcullis_up 1\n'), 0, 'none before the first')
  t.equal(
    appliedReloads(
      [
        '# TYPE portcullis_config_reloads_total counter',
        'portcullis_config_reloads_total{result="invalid"} 4',
        'portcullis_config_reloads_total{result="applied"} 2',
      ].join('\n'),
    ),
    2,
    'only the applied ones',
  )
})

void t.test('the access log is measured on and off on one gateway', async (t) => {
  const on = THROUGHPUT_SCENARIOS.find((s) => s.id === ACCESS_LOG_ON)
  const off = THROUGHPUT_SCENARIOS.find((s) => s.id === ACCESS_LOG_OFF)
  t.equal(on?.system, off?.system, 'the same gateway, so that only the setting differs')
  t.equal(on?.credential, off?.credential)
  t.same([on?.accessLog, off?.accessLog], [true, false])
  t.ok(
    THROUGHPUT_SCENARIOS.filter((s) => s.id !== on?.id && s.id !== off?.id).every(
      (s) => s.accessLog === undefined,
    ),
    'every other scenario leaves its gateway as started',
  )
})
