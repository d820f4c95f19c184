import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1'
import { Deployment } from 'kubernetes-models/apps/v1'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import {
  ConfigMap,
  PersistentVolumeClaim,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-models/v1'

interface Model {
  validate(): void
}

/** Every kind the chart may render, with the model that carries its OpenAPI schema. */
const MODELS: Readonly<Record<string, new (data: never) => Model>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
}

/**
 * Validates a manifest against the Kubernetes (1.27) or prometheus-operator JSON schema of its
 * kind, as kubeconform does, and a pod template against the API server's rules for native
 * sidecars (below): the problems found, or a single problem for a kind without a schema.
 */
export function kubernetesSchemaProblems(manifest: {
  apiVersion?: unknown
  kind?: unknown
  spec?: unknown
}): string[] {
  const key = `${String(manifest.apiVersion)}/${String(manifest.kind)}`
  const Model = MODELS[key]
  if (Model === undefined) return [`no schema for ${key}`]
  const problems: string[] = []
  try {
    new Model(manifest as never).validate()
  } catch (error) {
    problems.push(
      ...String((error as Error).message)
        .split('\n')
        .filter((line) => line.trim() !== ''),
    )
  }
  const podSpec = (manifest.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec
  if (podSpec !== undefined) problems.push(...sidecarProblems(podSpec, 'spec.template.spec'))
  return problems
}

interface ContainerSpec {
  name?: string
  restartPolicy?: unknown
  lifecycle?: unknown
  livenessProbe?: unknown
  readinessProbe?: unknown
  startupProbe?: unknown
}
interface PodSpec {
  containers?: ContainerSpec[]
  initContainers?: ContainerSpec[]
}

/**
 * The API server's checks of a container's `restartPolicy` (Kubernetes 1.29, validation.go),
 * which the 1.27 schemas above predate (they let unknown fields through): on an init container
 * only `Always` (a native sidecar, which alone of the init containers may have probes and a
 * lifecycle); on an ordinary container none; container names unique across both lists.
 */
export function sidecarProblems(spec: PodSpec, path: string): string[] {
  const problems: string[] = []
  const names = new Set<string>()
  const each = (list: ContainerSpec[] | undefined, field: string, init: boolean) =>
    (list ?? []).forEach((container, index) => {
      const at = `${path}.${field}[${index}]`
      if (container.name !== undefined) {
        if (names.has(container.name))
          problems.push(`${at}.name: Duplicate value: ${JSON.stringify(container.name)}`)
        names.add(container.name)
      }
      const policy = container.restartPolicy
      if (!init) {
        if (policy !== undefined)
          problems.push(`${at}.restartPolicy: Forbidden: may not be set for non-init containers`)
        return
      }
      if (policy !== undefined && policy !== 'Always')
        problems.push(
          `${at}.restartPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Always"`,
        )
      if (policy === 'Always') return
      for (const forbidden of [
        'lifecycle',
        'livenessProbe',
        'readinessProbe',
        'startupProbe',
      ] as const)
        if (container[forbidden] !== undefined)
          problems.push(
            `${at}.${forbidden}: Forbidden: may not be set for init containers without restartPolicy=Always`,
          )
    })
  each(spec.initContainers, 'initContainers', true)
  each(spec.containers, 'containers', false)
  return problems
}
