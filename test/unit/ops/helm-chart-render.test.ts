import t from 'tap'
import { parse } from 'yaml'
import { parseConfig } from '../../../src/config/load.js'
import { kubernetesSchemaProblems } from '../../helpers/kubernetes-schemas.js'
import { dataOf, exampleValues, find, NAMESPACE, only, render, type Rendered } from './chart.js'

/** One example per identity provider of docs/credentials.md's worked configurations. */
const IDP_EXAMPLES = [
  'idp-auth0-values.yaml',
  'idp-entra-id-values.yaml',
  'idp-google-values.yaml',
  'idp-keycloak-values.yaml',
  'idp-okta-values.yaml',
]

const kinds = (rendered: Rendered): string[] =>
  rendered.manifests.map((manifest) => `${manifest.kind}/${manifest.metadata.name}`).sort()

const CASES: [string, Record<string, unknown>][] = [
  ['default values', {}],
  ['ingress-postgres-values.yaml', exampleValues('ingress-postgres-values.yaml')],
  ['ingress-jwks-values.yaml', exampleValues('ingress-jwks-values.yaml')],
  ['sidecar-values.yaml', exampleValues('sidecar-values.yaml')],
  [
    'sidecar-values.yaml, an ordinary container, otherPorts: closed',
    {
      ...exampleValues('sidecar-values.yaml'),
      sidecar: { podSelector: { app: 'agentos' }, native: false },
      networkPolicy: { enabled: true, otherPorts: 'closed' },
    },
  ],
  ...IDP_EXAMPLES.map((name): [string, Record<string, unknown>] => [name, exampleValues(name)]),
]

void t.test('every template renders well-formed YAML manifests', async (t) => {
  for (const [name, values] of CASES) {
    const rendered = render(values)
    t.same(rendered.errors, [], `${name}: every document parses`)
    t.ok(rendered.manifests.length >= 5, `${name}: ${rendered.manifests.length} manifests`)
    const ids = kinds(rendered)
    t.equal(new Set(ids).size, ids.length, `${name}: no two manifests share kind and name`)
    for (const manifest of rendered.manifests) {
      const where = `${name}: ${manifest.kind}/${manifest.metadata.name}`
      t.match(manifest.apiVersion, /^[a-z0-9.]*\/?v\d/, `${where}: apiVersion`)
      t.match(manifest.metadata.name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, `${where}: DNS name`)
      t.ok(manifest.metadata.name.length <= 63, `${where}: name within 63 characters`)
      t.ok(manifest.metadata.namespace !== undefined, `${where}: namespaced`)
      t.equal(
        manifest.metadata.labels?.['app.kubernetes.io/managed-by'],
        'Helm',
        `${where}: labels`,
      )
    }
  }
})

void t.test(
  'the default values render an ingress Deployment with the embedded store',
  async (t) => {
    t.same(kinds(render()), [
      'ConfigMap/portcullis',
      'ConfigMap/portcullis-dashboard',
      'Deployment/portcullis',
      'PersistentVolumeClaim/portcullis-data',
      'PodDisruptionBudget/portcullis',
      'Service/portcullis',
      'Service/portcullis-admin',
      'ServiceAccount/portcullis',
    ])
    const secrets = render({ securityKey: { value: 'k' } })
    t.same(
      find(secrets, 'Secret').map((secret) => secret.metadata.name),
      ['portcullis'],
      'a Secret only when a value is given inline',
    )
  },
)

void t.test('the examples render what they describe', async (t) => {
  t.same(kinds(render(exampleValues('ingress-postgres-values.yaml'))), [
    'ConfigMap/portcullis',
    'ConfigMap/portcullis-dashboard',
    'Deployment/portcullis',
    'HorizontalPodAutoscaler/portcullis',
    'Ingress/portcullis',
    'NetworkPolicy/portcullis',
    'NetworkPolicy/portcullis-backend',
    'PodDisruptionBudget/portcullis',
    'PrometheusRule/portcullis',
    'Service/portcullis',
    'Service/portcullis-admin',
    'ServiceAccount/portcullis',
    'ServiceMonitor/portcullis',
  ])
  t.same(kinds(render(exampleValues('sidecar-values.yaml'))), [
    'ConfigMap/portcullis',
    'ConfigMap/portcullis-dashboard',
    'NetworkPolicy/portcullis',
    'Service/portcullis',
    'Service/portcullis-admin',
    'ServiceMonitor/portcullis',
  ])
  const backend = find(render(exampleValues('ingress-postgres-values.yaml')), 'NetworkPolicy')
  t.ok(
    backend.every((policy) => policy.metadata.namespace === NAMESPACE),
    'policies in the release namespace',
  )
})

void t.test('values that cannot work are refused with a message', async (t) => {
  const refused: [string, Record<string, unknown>, RegExp][] = [
    [
      'two replicas on the embedded store',
      { replicaCount: 2 },
      /embedded store serves one replica/,
    ],
    ['autoscaling on the embedded store', { autoscaling: { enabled: true } }, /embedded store/],
    [
      'a key both inline and by reference',
      { securityKey: { value: 'k', existingSecret: { name: 's', key: 'k' } } },
      /securityKey: give value or existingSecret.name, not both/,
    ],
    [
      'a database URL both inline and by reference',
      { database: { url: 'postgresql://x', existingSecret: { name: 's', key: 'k' } } },
      /database: give url or existingSecret.name, not both/,
    ],
    [
      'a NetworkPolicy without the backend selector',
      { networkPolicy: { enabled: true } },
      /networkPolicy.backend.podSelector is required/,
    ],
    [
      'sidecar mode without the pod selector',
      { mode: 'sidecar' },
      /sidecar.podSelector is required/,
    ],
    ['a port in the config file', { config: { server: { port: 80 } } }, /set ports.proxy/],
    [
      'the upstream in the config file',
      { config: { upstream: { url: 'http://x' } } },
      /upstream.url/,
    ],
    ['an unknown mode', { mode: 'gateway' }, /mode must be ingress or sidecar/],
    [
      'one port for both listeners',
      { ports: { admin: 8080 } },
      /ports.proxy and ports.admin must differ/,
    ],
    ['no image repository', { image: { repository: '' } }, /image.repository is required/],
  ]
  for (const [what, values, message] of refused) t.throws(() => render(values), message, what)

  const allowed: [string, Record<string, unknown>][] = [
    ['replicas with PostgreSQL', { replicaCount: 3, database: { url: 'postgresql://db/p' } }],
    [
      'replicas with a database Secret',
      { replicaCount: 3, database: { existingSecret: { name: 'db', key: 'url' } } },
    ],
    [
      'replicas without service accounts',
      { replicaCount: 3, config: { service_accounts: { enabled: false } } },
    ],
  ]
  for (const [what, values] of allowed) t.doesNotThrow(() => render(values), what)
})

void t.test('every rendered manifest is valid against its Kubernetes schema', async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    ...CASES,
    // Every optional template switched on, so that each kind is validated at least once.
    [
      'everything on',
      {
        ...exampleValues('ingress-postgres-values.yaml'),
        ingress: { enabled: true, tls: [{ secretName: 'tls', hosts: ['portcullis.example.com'] }] },
        networkPolicy: {
          enabled: true,
          backend: { podSelector: { 'app.kubernetes.io/name': 'agentos' } },
          egress: { restrict: true },
        },
        autoscaling: { enabled: true, targetMemoryUtilizationPercentage: 80 },
        metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true } },
      },
    ],
  ]
  const seen = new Set<string>()
  for (const [name, values] of cases) {
    for (const manifest of render(values).manifests) {
      seen.add(manifest.kind)
      t.same(
        kubernetesSchemaProblems(manifest),
        [],
        `${name}: ${manifest.kind}/${manifest.metadata.name} matches its schema`,
      )
    }
  }
  for (const kind of [
    'Deployment',
    'Service',
    'ConfigMap',
    'PersistentVolumeClaim',
    'Ingress',
    'NetworkPolicy',
    'HorizontalPodAutoscaler',
    'ServiceMonitor',
    'PrometheusRule',
    'PodDisruptionBudget',
  ])
    t.ok(seen.has(kind), `${kind} was validated`)
})

void t.test('the schema check catches what a real cluster would refuse', async (t) => {
  const deployment = find(render(), 'Deployment')[0]
  t.ok(deployment)
  const broken = structuredClone(deployment) as unknown as {
    kind: string
    spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } }
  }
  const port = broken.spec.template.spec.containers[0]?.ports[0]
  if (port !== undefined) port.containerPort = 'eighty'
  t.match(kubernetesSchemaProblems(broken), [/containerPort must be integer/])
  t.same(kubernetesSchemaProblems({ apiVersion: 'v1', kind: 'Pod2' }), ['no schema for v1/Pod2'])
})

void t.test(
  'the identity-provider examples configure a remote key set the gateway accepts',
  async (t) => {
    for (const name of IDP_EXAMPLES) {
      const rendered = render(exampleValues(name))
      const file = dataOf(only(rendered, 'ConfigMap', 'portcullis'))['portcullis.yaml'] as string
      const auth = (parse(file) as { auth: Record<string, unknown> }).auth
      t.ok(
        typeof auth.oidc_issuer === 'string' || typeof auth.jwks_url === 'string',
        `${name}: a JWKS URL or an issuer`,
      )
      // The chart's config file plus what the chart sets through the environment.
      const config = parseConfig(file, name, {
        env: { PORTCULLIS_UPSTREAM_URL: 'http://agentos:7777' },
        readFile: () => {
          throw new Error('no file is read')
        },
      })
      t.equal(config.auth.verify_audience, true, `${name}: the audience is checked`)
      const policies = find(rendered, 'NetworkPolicy', 'portcullis')
      for (const policy of policies) {
        const spec = policy.spec as {
          policyTypes: string[]
          egress?: { ports?: { port: number }[] }[]
        }
        if (!spec.policyTypes.includes('Egress')) continue
        t.ok(
          spec.egress?.some((rule) =>
            rule.ports?.some((port) => port.port === 443 || port.port === 8080),
          ),
          `${name}: restricted egress still reaches the provider`,
        )
      }
    }
  },
)
