import t from 'tap'
import { parse } from 'yaml'
import { kubernetesSchemaProblems } from '../../helpers/kubernetes-schemas.js'
import {
  dataOf,
  env,
  exampleValues,
  find,
  only,
  render,
  sidecarPatch,
  strategicMerge,
  type Container,
  type Manifest,
  type PodSpec,
} from './chart.js'

const values = exampleValues('sidecar-values.yaml')
const AGENTOS = { 'app.kubernetes.io/name': 'agentos' }
const sidecarValues = values.sidecar as Record<string, unknown>

/** An AgentOS Deployment as an operator has it, with a volume named as the chart's once were. */
const AGENTOS_DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'agentos', namespace: 'agents' },
  spec: {
    selector: { matchLabels: AGENTOS },
    template: {
      metadata: { labels: AGENTOS },
      spec: {
        securityContext: { runAsUser: 0 },
        containers: [
          {
            name: 'agentos',
            image: 'registry.example.com/my-agentos:1',
            args: ['uvicorn', 'app:app', '--host', '127.0.0.1', '--port', '7777'],
            volumeMounts: [{ name: 'config', mountPath: '/app/config' }],
          },
        ],
        volumes: [{ name: 'config', configMap: { name: 'agentos-config' } }],
      },
    },
  },
}

/** The AgentOS Deployment after `kubectl patch --type strategic` with the NOTES.txt patch. */
function patched(valuesOverride: Record<string, unknown> = {}): {
  deployment: Manifest
  spec: PodSpec
} {
  const notes = render({ ...values, ...valuesOverride }).chart.notes
  const deployment = strategicMerge(AGENTOS_DEPLOYMENT, sidecarPatch(notes)) as Manifest
  return {
    deployment,
    spec: (deployment.spec as { template: { spec: PodSpec } }).template.spec,
  }
}

void t.test('sidecar mode renders no workload, only what the AgentOS pod needs', async (t) => {
  const rendered = render(values)
  for (const kind of [
    'Deployment',
    'HorizontalPodAutoscaler',
    'PodDisruptionBudget',
    'ServiceAccount',
  ])
    t.same(find(rendered, kind), [], `no ${kind}`)
  for (const service of find(rendered, 'Service'))
    t.same(
      (service.spec as { selector: unknown }).selector,
      AGENTOS,
      `${service.metadata.name} selects the AgentOS pods`,
    )
})

void t.test(
  'NOTES.txt prints a native sidecar: an init container with restartPolicy Always',
  async (t) => {
    const rendered = render(values)
    const patch = sidecarPatch(rendered.chart.notes).spec.template.spec
    t.same(Object.keys(patch).sort(), ['initContainers', 'volumes'], 'nothing pod-wide')
    t.equal(patch.initContainers?.length, 1)
    const container = patch.initContainers?.[0] as Container
    t.equal(container.name, 'portcullis')
    t.equal(container.restartPolicy, 'Always', 'started before AgentOS, stopped after it')
    t.equal(container.startupProbe.httpGet.path, '/healthz', 'AgentOS starts once it listens')
    t.equal(container.readinessProbe.httpGet.path, '/readyz')
    t.equal(
      container.lifecycle,
      undefined,
      'no preStop sleep: it would run only after AgentOS has exited',
    )
    t.equal(
      env(container, 'PORTCULLIS_UPSTREAM_URL')?.value,
      'http://127.0.0.1:7777',
      'AgentOS on loopback',
    )
    t.same(env(container, 'OS_SECURITY_KEY')?.valueFrom?.secretKeyRef, {
      name: 'agentos-auth',
      key: 'security-key',
    })
    t.same(env(container, 'DATABASE_URL')?.valueFrom?.secretKeyRef, {
      name: 'agentos-auth',
      key: 'database-url',
    })
    t.same(
      container.ports.map((port) => port.name),
      ['gateway', 'gateway-admin'],
      'port names that do not collide with the AgentOS container',
    )
    const configMap = only(rendered, 'ConfigMap', 'portcullis')
    t.equal(
      patch.volumes?.find((volume) => volume.name === 'portcullis-config')?.configMap?.name,
      configMap.metadata.name,
      'the patch mounts the ConfigMap this release created',
    )
    for (const mount of container.volumeMounts)
      t.ok(
        patch.volumes?.some((volume) => volume.name === mount.name),
        `volume ${mount.name} is in the patch`,
      )
    t.match(rendered.chart.notes, /127\.0\.0\.1 only/)
    t.match(rendered.chart.notes, /Kubernetes 1\.29\+/)
    t.notMatch(rendered.chart.notes, /fsGroup/, 'no data volume, so no word of fsGroup')

    const withoutUrl = render({ ...values, upstream: { url: '' } })
    const fallback = sidecarPatch(withoutUrl.chart.notes).spec.template.spec.initContainers?.[0]
    t.equal(fallback && env(fallback, 'PORTCULLIS_UPSTREAM_URL')?.value, 'http://127.0.0.1:7777')
    t.notMatch(render().chart.notes, /^---$/m, 'ingress mode prints no patch')
  },
)

void t.test('sidecar.native: false falls back to an ordinary container', async (t) => {
  const notes = render({ ...values, sidecar: { ...sidecarValues, native: false } }).chart.notes
  const patch = sidecarPatch(notes).spec.template.spec
  t.same(Object.keys(patch).sort(), ['containers', 'volumes'])
  const container = patch.containers?.[0] as Container
  t.equal(container.name, 'portcullis')
  t.equal(container.restartPolicy, undefined, 'an ordinary container has none')
  t.same(
    container.lifecycle?.preStop?.exec.command,
    ['sleep', '5'],
    'the preStop sleep keeps it serving while the endpoints go',
  )
  t.match(notes, /get SIGTERM at once/)
})

void t.test(
  'the patched AgentOS Deployment is valid, and AgentOS’s container and pod settings are untouched',
  async (t) => {
    for (const native of [true, false]) {
      const { deployment, spec } = patched({ sidecar: { ...sidecarValues, native } })
      const name = native ? 'native sidecar' : 'ordinary container'
      t.same(kubernetesSchemaProblems(deployment), [], `${name}: the API server would accept it`)
      const original = AGENTOS_DEPLOYMENT.spec.template.spec
      t.same(spec.containers[0], original.containers[0], `${name}: AgentOS's container unchanged`)
      t.same(
        spec.securityContext,
        original.securityContext,
        `${name}: pod securityContext unchanged`,
      )
      t.same(spec.volumes[0], original.volumes[0], `${name}: AgentOS's own config volume unchanged`)
      const portcullis = (native ? spec.initContainers : spec.containers)?.find(
        (container) => container.name === 'portcullis',
      )
      t.ok(portcullis, `${name}: Portcullis is in the pod`)
      if (portcullis === undefined) continue
      const security = portcullis.securityContext
      t.equal(security.runAsNonRoot, true, `${name}: non-root`)
      t.equal(security.runAsUser, 1000, `${name}: its own user, not the pod's (uid 0 here)`)
      t.equal(security.runAsGroup, 1000)
      t.same(security.seccompProfile, { type: 'RuntimeDefault' })
      t.equal(security.readOnlyRootFilesystem, true)
      t.equal(security.allowPrivilegeEscalation, false)
      t.same(security.capabilities?.drop, ['ALL'])
    }
  },
)

void t.test('the native-sidecar rules catch what the API server refuses', async (t) => {
  const { deployment, spec } = patched()
  const sidecar = spec.initContainers?.[0] as Container
  const withSpec = (podSpec: Partial<PodSpec>) =>
    kubernetesSchemaProblems({
      ...deployment,
      spec: { ...(deployment.spec as object), template: { spec: { ...spec, ...podSpec } } },
    })
  const ordinary = { ...sidecar }
  delete ordinary.restartPolicy
  t.same(
    withSpec({ initContainers: [ordinary] }),
    ['livenessProbe', 'readinessProbe', 'startupProbe'].map(
      (field) =>
        `spec.template.spec.initContainers[0].${field}: Forbidden: may not be set for init containers without restartPolicy=Always`,
    ),
    'probes only on a native sidecar',
  )
  t.same(withSpec({ initContainers: [{ ...sidecar, restartPolicy: 'OnFailure' }] }).slice(0, 1), [
    'spec.template.spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
  ])
  t.same(withSpec({ initContainers: [], containers: [...spec.containers, sidecar] }), [
    'spec.template.spec.containers[1].restartPolicy: Forbidden: may not be set for non-init containers',
  ])
  t.same(withSpec({ containers: [...spec.containers, ordinary] }), [
    'spec.template.spec.containers[1].name: Duplicate value: "portcullis"',
  ])
})

void t.test(
  'the embedded store in sidecar mode: the data volume and its fsGroup note',
  async (t) => {
    const embedded = { ...values, database: { existingSecret: { name: '', key: 'database-url' } } }
    const claim = render(embedded)
    const patch = sidecarPatch(claim.chart.notes).spec.template.spec
    t.equal(
      patch.volumes?.find((volume) => volume.name === 'portcullis-data')?.persistentVolumeClaim
        ?.claimName,
      'portcullis-data',
    )
    t.match(claim.chart.notes, /must be writable by the\s+gateway's user \(uid 1000\)/)
    t.match(claim.chart.notes, /fsGroup: 1000, which also applies to the AgentOS container's/)
    t.same(Object.keys(patch).sort(), ['initContainers', 'volumes'], 'the patch itself sets none')

    const ephemeral = render({ ...embedded, persistence: { enabled: false } })
    t.same(
      sidecarPatch(ephemeral.chart.notes).spec.template.spec.volumes?.find(
        (volume) => volume.name === 'portcullis-data',
      )?.emptyDir,
      {},
    )
    t.notMatch(ephemeral.chart.notes, /fsGroup/, 'an emptyDir is writable without it')
  },
)

interface Peer {
  namespaceSelector?: unknown
  podSelector?: unknown
}
interface PolicyPort {
  protocol: string
  port?: number
  endPort?: number
}
interface PolicySpec {
  podSelector: { matchLabels: unknown }
  policyTypes: string[]
  ingress: { ports: PolicyPort[]; from?: Peer[] }[]
}

/**
 * Who the policy admits on a port, as a CNI evaluates it: the union of its rules; `anyone` for a
 * rule without `from`.
 */
function admitted(policy: PolicySpec, port: number, protocol = 'TCP'): (Peer | 'anyone')[] {
  return policy.ingress.flatMap((rule): (Peer | 'anyone')[] =>
    rule.ports.some(
      (p) =>
        p.protocol === protocol &&
        (p.port === undefined || (p.port <= port && port <= (p.endPort ?? p.port))),
    )
      ? (rule.from ?? ['anyone'])
      : [],
  )
}

void t.test(
  'the sidecar NetworkPolicy closes AgentOS’s port and, with otherPorts: open, nothing else',
  async (t) => {
    const monitoring = { namespaceSelector: { matchLabels: { name: 'monitoring' } } }
    const ingress = { namespaceSelector: { matchLabels: { name: 'ingress-nginx' } } }
    const policyOf = (networkPolicy: Record<string, unknown>) => {
      const rendered = render({
        ...values,
        networkPolicy: { ...(values.networkPolicy as object), ...networkPolicy },
      })
      t.same(rendered.errors, [])
      const policy = only(rendered, 'NetworkPolicy')
      t.same(kubernetesSchemaProblems(policy), [])
      return policy.spec as PolicySpec
    }
    const open = policyOf({ proxyFrom: [ingress], adminFrom: [monitoring] })
    t.same(open.podSelector.matchLabels, AGENTOS)
    t.same(open.policyTypes, ['Ingress'], 'AgentOS’s egress is left alone')
    t.same(admitted(open, 7777), [], 'AgentOS’s port: nobody, even if AgentOS bound 0.0.0.0')
    t.same(admitted(open, 8080), [ingress], 'the proxy port: proxyFrom only')
    t.same(admitted(open, 9090), [monitoring], 'the admin port: adminFrom only')
    for (const port of [1, 22, 7776, 7778, 8079, 8081, 9089, 9091, 15090, 65535])
      t.same(admitted(open, port), ['anyone'], `another port (${port}) stays reachable`)
    t.same(admitted(open, 53, 'UDP'), ['anyone'], 'and UDP')

    const moved = policyOf({ backend: { port: 8000 } })
    t.same(admitted(moved, 8000), [], 'backend.port is the port closed')
    t.same(admitted(moved, 7777), ['anyone'])
    const adjacent = policyOf({ backend: { port: 8081 } })
    t.same(admitted(adjacent, 8081), [], 'a port next to the proxy port')
    for (const port of [8079, 8082, 9089]) t.same(admitted(adjacent, port), ['anyone'])
    t.same(admitted(adjacent, 8080), ['anyone'], 'proxyFrom empty: anyone')

    const closed = policyOf({ otherPorts: 'closed', adminFrom: [monitoring] })
    t.same(admitted(closed, 8080), ['anyone'])
    t.same(admitted(closed, 9090), [monitoring])
    for (const port of [7777, 22, 15090])
      t.same(admitted(closed, port), [], `closed: ${port} only as other policies admit it`)
    t.same(admitted(closed, 53, 'UDP'), [])
    t.match(
      render({ ...values, networkPolicy: { enabled: true, otherPorts: 'closed' } }).chart.notes,
      /closes every other port/,
    )
    t.match(render(values).chart.notes, /never admit AgentOS's port 7777/)
  },
)

void t.test('sidecar values that cannot work are refused', async (t) => {
  const refused: [string, Record<string, unknown>, RegExp][] = [
    [
      'a restricted egress, which would restrict AgentOS’s',
      { networkPolicy: { enabled: true, egress: { restrict: true } } },
      /networkPolicy.egress.restrict is for ingress mode/,
    ],
    [
      'AgentOS on the proxy port',
      { networkPolicy: { enabled: true, backend: { port: 8080 } } },
      /networkPolicy.backend.port is AgentOS's port in the pod/,
    ],
    [
      'an unknown otherPorts',
      { networkPolicy: { enabled: true, otherPorts: 'some' } },
      /networkPolicy.otherPorts must be open or closed/,
    ],
  ]
  for (const [what, override, message] of refused)
    t.throws(() => render({ ...values, ...override }), message, what)
})

void t.test('the admin listener binds the pod address, in both modes', async (t) => {
  for (const [name, given] of [
    ['ingress', {}],
    ['sidecar', values],
  ] as const) {
    const file = dataOf(only(render(given), 'ConfigMap', 'portcullis'))['portcullis.yaml']
    const server = (parse(file ?? '') as { server: { admin_host?: string } }).server
    t.equal(server.admin_host, '0.0.0.0', `${name}: probes and Prometheus reach it`)
  }
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1'])
    t.throws(
      () => render({ config: { server: { admin_host: host } } }),
      /config.server.admin_host: the kubelet's probes and Prometheus reach the admin port/,
      `${host} is refused`,
    )
  t.throws(
    () => render({ config: { server: { admin_host: null } } }),
    /config.server.admin_host/,
    'and so is leaving it to the gateway’s loopback default',
  )
  t.doesNotThrow(() => render({ config: { server: { admin_host: '::' } } }))
})
