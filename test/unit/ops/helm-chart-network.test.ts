import { readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'
import {
  exampleValues,
  find,
  NAMESPACE,
  only,
  podTemplate,
  render,
  type Manifest,
} from './chart.js'
import { projectPath } from '../../helpers/project-root.js'

interface Peer {
  namespaceSelector?: { matchLabels?: Record<string, string> }
  podSelector?: { matchLabels?: Record<string, string> }
}
interface Rule {
  from?: Peer[]
  to?: Peer[]
  ports: { port: number; protocol: string }[]
}
interface PolicySpec {
  podSelector: { matchLabels: Record<string, string> }
  policyTypes: string[]
  ingress: Rule[]
  egress?: Rule[]
}
const specOf = (manifest: Manifest) => manifest.spec as PolicySpec

void t.test('ingress mode: AgentOS admits only the Portcullis pods, on its port', async (t) => {
  const rendered = render(exampleValues('ingress-postgres-values.yaml'))
  const podLabels = podTemplate(only(rendered, 'Deployment')).metadata.labels
  const backend = specOf(only(rendered, 'NetworkPolicy', 'portcullis-backend'))
  t.same(backend.podSelector.matchLabels, { 'app.kubernetes.io/name': 'agentos' })
  t.same(backend.policyTypes, ['Ingress'])
  t.equal(backend.ingress.length, 1, 'one rule: nothing else gets in')
  const [rule] = backend.ingress as [Rule]
  t.same(rule.ports, [{ port: 7777, protocol: 'TCP' }])
  t.same(rule.from, [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
      podSelector: { matchLabels: podLabels },
    },
  ])
  const selector = (
    only(rendered, 'Deployment').spec as { selector: { matchLabels: Record<string, string> } }
  ).selector.matchLabels
  for (const [key, value] of Object.entries(selector))
    t.equal(podLabels[key], value, `the gateway pods carry ${key}`)

  const gateway = specOf(only(rendered, 'NetworkPolicy', 'portcullis'))
  t.same(gateway.podSelector.matchLabels, selector, 'the gateway policy selects the gateway pods')
  t.same(gateway.policyTypes, ['Ingress', 'Egress'])
  t.same(
    gateway.ingress.map((r) => r.ports[0]?.port),
    [8080, 9090],
    'only the proxy and admin ports',
  )
  t.same(gateway.ingress[0]?.from, [
    { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
  ])
  const egressPorts = (gateway.egress ?? []).flatMap((r) => r.ports.map((p) => p.port))
  t.same(egressPorts, [53, 53, 7777, 5432], 'egress: DNS, AgentOS, PostgreSQL')
  t.same(gateway.egress?.[1]?.to?.[0]?.podSelector?.matchLabels, {
    'app.kubernetes.io/name': 'agentos',
  })

  const elsewhere = render({
    networkPolicy: {
      enabled: true,
      backend: { podSelector: { app: 'agentos' }, namespace: 'ai', port: 8000 },
    },
  })
  const remote = only(elsewhere, 'NetworkPolicy', 'portcullis-backend')
  t.equal(remote.metadata.namespace, 'ai', 'the backend policy lives with the backend')
  t.same(specOf(remote).ingress[0]?.ports, [{ port: 8000, protocol: 'TCP' }])
  t.same(
    specOf(only(elsewhere, 'NetworkPolicy', 'portcullis')).policyTypes,
    ['Ingress'],
    'egress open by default',
  )
})

void t.test('Services: the proxy Service and a ClusterIP-only admin Service', async (t) => {
  const rendered = render({ service: { type: 'LoadBalancer' } })
  const container = podTemplate(only(rendered, 'Deployment')).spec.containers[0]
  const portNames = new Set(container?.ports.map((port) => port.name))
  const proxy = only(rendered, 'Service', 'portcullis').spec as {
    type: string
    selector: Record<string, string>
    ports: { name: string; targetPort: string; port: number }[]
  }
  const admin = only(rendered, 'Service', 'portcullis-admin').spec as typeof proxy
  t.equal(proxy.type, 'LoadBalancer')
  t.same(
    proxy.ports.map((p) => p.name),
    ['http'],
    'the proxy Service never exposes /metrics',
  )
  t.equal(admin.type, 'ClusterIP', 'the admin Service stays inside the cluster')
  t.same(
    admin.ports.map((p) => p.name),
    ['admin'],
  )
  for (const port of [...proxy.ports, ...admin.ports])
    t.ok(
      portNames.has(port.targetPort),
      `${port.name} targets the container port ${port.targetPort}`,
    )
  const podLabels = podTemplate(only(rendered, 'Deployment')).metadata.labels
  for (const service of [proxy, admin])
    for (const [key, value] of Object.entries(service.selector)) t.equal(podLabels[key], value)
})

void t.test('Ingress and monitoring objects point at what the chart rendered', async (t) => {
  const rendered = render(exampleValues('ingress-postgres-values.yaml'))
  const ingress = only(rendered, 'Ingress').spec as {
    rules: {
      http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] }
    }[]
  }
  const backend = ingress.rules[0]?.http.paths[0]?.backend.service
  t.same(backend, { name: 'portcullis', port: { name: 'http' } })

  const monitor = only(rendered, 'ServiceMonitor').spec as {
    selector: { matchLabels: Record<string, string> }
    endpoints: { port: string; path: string }[]
  }
  const selected = find(rendered, 'Service').filter((service) =>
    Object.entries(monitor.selector.matchLabels).every(
      ([k, v]) => service.metadata.labels?.[k] === v,
    ),
  )
  t.same(
    selected.map((service) => service.metadata.name),
    ['portcullis-admin'],
    'scrapes the admin Service only',
  )
  t.same(monitor.endpoints, [
    { port: 'admin', path: '/metrics', interval: '30s', scrapeTimeout: '10s' },
  ])

  const rule = only(rendered, 'PrometheusRule').spec
  const alerts = parse(
    readFileSync(projectPath('deploy/prometheus/portcullis-alerts.yaml'), 'utf8'),
  ) as unknown
  t.same(rule, alerts, 'the PrometheusRule carries deploy/prometheus/portcullis-alerts.yaml')

  const dashboard = only(rendered, 'ConfigMap', 'portcullis-dashboard') as Manifest & {
    data: Record<string, string>
  }
  t.equal(dashboard.metadata.labels?.grafana_dashboard, '1', 'the Grafana sidecar label')
  t.same(
    JSON.parse(dashboard.data['portcullis-dashboard.json'] as string),
    JSON.parse(readFileSync(projectPath('deploy/grafana/portcullis-dashboard.json'), 'utf8')),
    'the dashboard ConfigMap carries deploy/grafana/portcullis-dashboard.json',
  )
  t.same(find(render({ metrics: { grafanaDashboard: { enabled: false } } }), 'ConfigMap').length, 1)
})
