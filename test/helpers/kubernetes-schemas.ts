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
 * kind, as kubeconform does: the problems found, or a single problem for a kind without a schema.
 */
export function kubernetesSchemaProblems(manifest: {
  apiVersion?: unknown
  kind?: unknown
}): string[] {
  const key = `${String(manifest.apiVersion)}/${String(manifest.kind)}`
  const Model = MODELS[key]
  if (Model === undefined) return [`no schema for ${key}`]
  try {
    new Model(manifest as never).validate()
    return []
  } catch (error) {
    return String((error as Error).message)
      .split('\n')
      .filter((line) => line.trim() !== '')
  }
}
