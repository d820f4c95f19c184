import t from 'tap'
import { env, exampleValues, find, only, render, sidecarPatch } from './chart.js'

const values = exampleValues('sidecar-values.yaml')
const AGENTOS = { 'app.kubernetes.io/name': 'agentos' }

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
  const policy = only(rendered, 'NetworkPolicy').spec as {
    podSelector: { matchLabels: unknown }
    ingress: { ports: { port: number }[] }[]
  }
  t.same(policy.podSelector.matchLabels, AGENTOS)
  t.same(
    policy.ingress.flatMap((rule) => rule.ports.map((port) => port.port)),
    [8080, 9090],
    'the pod admits the gateway ports only: AgentOS on 7777 is unreachable from outside',
  )
})

void t.test(
  'NOTES.txt prints the container and volumes to patch into the AgentOS pod',
  async (t) => {
    const rendered = render(values)
    const patch = sidecarPatch(rendered.chart.notes).spec.template.spec
    t.equal(patch.containers.length, 1)
    const container = patch.containers[0]
    if (container === undefined) return
    t.equal(container.name, 'portcullis')
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
    t.equal(container.readinessProbe.httpGet.path, '/readyz')
    t.equal(container.securityContext.readOnlyRootFilesystem, true)
    t.same(
      container.ports.map((port) => port.name),
      ['gateway', 'gateway-admin'],
      'port names that do not collide with the AgentOS container',
    )
    const configMap = only(rendered, 'ConfigMap', 'portcullis')
    t.equal(
      patch.volumes.find((volume) => volume.name === 'config')?.configMap?.name,
      configMap.metadata.name,
      'the patch mounts the ConfigMap this release created',
    )
    for (const mount of container.volumeMounts)
      t.ok(
        patch.volumes.some((volume) => volume.name === mount.name),
        `volume ${mount.name} is in the patch`,
      )
    t.match(rendered.chart.notes, /127\.0\.0\.1 only/)

    const withoutUrl = render({ ...values, upstream: { url: '' } })
    const fallback = sidecarPatch(withoutUrl.chart.notes).spec.template.spec.containers[0]
    t.equal(fallback && env(fallback, 'PORTCULLIS_UPSTREAM_URL')?.value, 'http://127.0.0.1:7777')
    t.notMatch(render().chart.notes, /^---$/m, 'ingress mode prints no patch')
  },
)
