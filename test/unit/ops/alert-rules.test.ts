import { readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'
import { readCatalogue } from './metrics-catalogue.js'
import { checkPromql } from './promql-check.js'
import { projectPath } from '../../helpers/project-root.js'

const ALERTS = projectPath('deploy/prometheus/portcullis-alerts.yaml')
const OPERATIONS = projectPath('docs/operations.md')

interface Rule {
  alert?: string
  expr?: string
  for?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
}

const file = parse(readFileSync(ALERTS, 'utf8')) as { groups: { name: string; rules: Rule[] }[] }
const rules = file.groups.flatMap((group) => group.rules)
const catalogue = readCatalogue()

void t.test('the rule file has the shape Prometheus loads', async (t) => {
  t.same(Object.keys(file), ['groups'], 'only groups at the top (also the PrometheusRule spec)')
  const groupNames = file.groups.map((group) => group.name)
  t.equal(new Set(groupNames).size, groupNames.length, 'unique group names')
  const names = rules.map((rule) => rule.alert)
  t.equal(new Set(names).size, names.length, 'unique alert names')
  for (const rule of rules) {
    const where = rule.alert ?? '(unnamed)'
    t.match(where, /^Portcullis[A-Z][A-Za-z0-9]+$/, `${where}: alert name`)
    t.type(rule.expr, 'string', `${where}: expr`)
    if (rule.for !== undefined) t.match(rule.for, /^\d+[smh]$/, `${where}: for is a duration`)
    t.ok(
      ['critical', 'warning', 'info'].includes(rule.labels?.severity ?? ''),
      `${where}: severity label`,
    )
    t.ok((rule.annotations?.summary ?? '').length > 0, `${where}: summary`)
    t.ok((rule.annotations?.description ?? '').length > 0, `${where}: description`)
    for (const text of Object.values(rule.annotations ?? {})) {
      t.equal(
        (text.match(/\{\{/g) ?? []).length,
        (text.match(/\}\}/g) ?? []).length,
        `${where}: balanced template braces`,
      )
    }
  }
})

void t.test('every expression uses only documented metrics and labels', async (t) => {
  for (const rule of rules) {
    const { problems } = checkPromql(rule.expr ?? '', catalogue)
    t.same(problems, [], `${rule.alert ?? ''}: ${rule.expr ?? ''}`)
  }
})

void t.test('the alerts the runbook promises exist and are described there', async (t) => {
  const byName = new Map(rules.map((rule) => [rule.alert, rule]))
  const required: [string, string][] = [
    ['PortcullisHigh5xxRate', 'portcullis_http_requests_total'],
    ['PortcullisStoreUnavailable', 'portcullis_service_account_store_errors_total'],
    ['PortcullisThrottlingSpike', 'portcullis_service_account_throttled_requests_total'],
    ['PortcullisJwksReloadFailed', 'portcullis_jwks_reloads_total'],
    ['PortcullisUpstreamErrors', 'portcullis_upstream_errors_total'],
    ['PortcullisNoTraffic', 'portcullis_http_requests_total'],
    ['PortcullisTargetDown', 'up'],
    ['PortcullisRefusedTokenSpike', 'portcullis_audit_refused_tokens_total'],
  ]
  for (const [name, metric] of required) {
    const rule = byName.get(name)
    t.ok(rule, `${name} exists`)
    t.match(rule?.expr ?? '', metric, `${name} uses ${metric}`)
  }
  const runbook = readFileSync(OPERATIONS, 'utf8')
  for (const rule of rules)
    t.match(
      runbook,
      `\`${rule.alert ?? ''}\``,
      `${rule.alert ?? ''} is explained in docs/operations.md`,
    )
})

void t.test(
  'the refused-token alert names accounts only, never the tokens no account has',
  async (t) => {
    const rule = rules.find((candidate) => candidate.alert === 'PortcullisRefusedTokenSpike')
    t.match(rule?.expr ?? '', 'account!="(unknown)"', "guesses are the throttle alert's")
  },
)
