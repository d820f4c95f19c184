import { z } from 'zod'
import { configSchema } from '../src/config/schema.js'

/**
 * The JSON Schema (draft-07, which every Helm 3 release validates) of the chart's values.
 * `config` is the Portcullis config schema itself, converted from zod, so a key the gateway
 * would refuse is refused by `helm install` / `helm lint` already. Written to
 * helm/portcullis/values.schema.json by scripts/gen-helm-schema.ts.
 */

type Schema = Record<string, unknown>

const string = (description: string, extra: Schema = {}): Schema => ({
  type: 'string',
  description,
  ...extra,
})
const boolean = (description: string): Schema => ({ type: 'boolean', description })
const integer = (description: string, minimum = 0, maximum?: number): Schema => ({
  type: 'integer',
  description,
  minimum,
  ...(maximum === undefined ? {} : { maximum }),
})
const port = (description: string): Schema => integer(description, 1, 65535)
const object = (description: string, properties: Record<string, Schema>): Schema => ({
  type: 'object',
  description,
  additionalProperties: false,
  properties,
})
const labels = (description: string): Schema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
})
/** A Kubernetes object the chart passes through unchanged (resources, affinity, …). */
const kubernetes = (description: string): Schema => ({ type: 'object', description })
const kubernetesList = (description: string): Schema => ({
  type: 'array',
  description,
  items: { type: 'object' },
})

function secretSource(
  description: string,
  defaultKey: string,
  valueName = 'value',
  extra: Record<string, Schema> = {},
): Schema {
  return object(description, {
    ...extra,
    [valueName]: string(`Inline value; the chart stores it in its own Secret.`),
    existingSecret: {
      ...object(`A Secret of yours holding it (takes the place of ${valueName}).`, {
        name: string('Secret name; empty: use the inline value.'),
        key: string(`Key in the Secret (default ${defaultKey}).`, { minLength: 1 }),
      }),
      required: ['name', 'key'],
    },
  })
}

const probe = (description: string): Schema =>
  object(description, {
    initialDelaySeconds: integer('Seconds before the first probe.'),
    periodSeconds: integer('Seconds between probes.', 1),
    timeoutSeconds: integer('Seconds a probe may take.', 1),
    failureThreshold: integer('Failures in a row before acting.', 1),
    successThreshold: integer('Successes in a row to recover.', 1),
  })

/** Formats outside JSON Schema's own list (zod's `starts_with`) are dropped; `pattern` says it. */
const STANDARD_FORMATS = new Set(['uri', 'email', 'date-time', 'ipv4', 'ipv6', 'hostname'])

function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable)
  if (typeof node !== 'object' || node === null) return node
  const out: Schema = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue
    if (key === 'format' && typeof value === 'string' && !STANDARD_FORMATS.has(value)) continue
    // `default` and `examples` hold data, not schemas: copied as they are.
    out[key] = key === 'default' || key === 'examples' ? value : portable(value)
  }
  return out
}

/** The Portcullis config schema as JSON Schema, for `values.config`. */
export function configJsonSchema(): Schema {
  const converted = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-7' })
  return {
    ...(portable(converted) as Schema),
    description:
      'The Portcullis config file (docs/configuration.md); keys set through the environment by the chart must stay unset.',
  }
}

export function helmValuesSchema(): Schema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Portcullis Helm chart values',
    type: 'object',
    additionalProperties: false,
    properties: {
      global: { type: 'object', description: 'Helm global values (parent charts).' },
      mode: {
        type: 'string',
        enum: ['ingress', 'sidecar'],
        description:
          'ingress: a Deployment in front of upstream.url; sidecar: objects for a Portcullis container in the AgentOS pod.',
      },
      nameOverride: string('Replaces the chart name in resource names.'),
      fullnameOverride: string('Replaces <release>-<chart> as the resource name.'),
      image: object('The Portcullis image.', {
        repository: string('Image repository.', { minLength: 1 }),
        tag: string('Image tag; empty: the chart appVersion.'),
        pullPolicy: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] },
      }),
      pullSecrets: kubernetesList('imagePullSecrets of the pod.'),
      upstream: object('The protected AgentOS.', {
        url: string(
          'PORTCULLIS_UPSTREAM_URL; empty: http://agentos:7777 (ingress) or http://127.0.0.1:7777 (sidecar).',
          { pattern: '^(https?://.+)?$' },
        ),
      }),
      ports: object('Container ports.', {
        proxy: port('PORTCULLIS_PORT.'),
        admin: port('PORTCULLIS_ADMIN_PORT: health, readiness, metrics.'),
      }),
      config: configJsonSchema(),
      securityKey: secretSource('OS_SECURITY_KEY.', 'security-key'),
      jwt: object('JWT verification.', {
        verificationKey: secretSource('JWT_VERIFICATION_KEY.', 'verification-key'),
        jwks: secretSource(
          'A JWKS file (JWT_JWKS_FILE), mounted read-only.',
          'jwks.json',
          'value',
          {
            mountPath: string('Directory the JWKS is mounted in.', { pattern: '^/' }),
          },
        ),
      }),
      database: secretSource('DATABASE_URL (PostgreSQL).', 'database-url', 'url'),
      persistence: object('The embedded store volume (without a database URL).', {
        enabled: boolean('A PersistentVolumeClaim; false: an emptyDir.'),
        existingClaim: string('A claim of yours instead of the chart’s.'),
        storageClass: string('Storage class of the claim.'),
        accessModes: { type: 'array', items: { type: 'string' }, minItems: 1 },
        size: string('Requested size.', { minLength: 1 }),
        mountPath: string('PORTCULLIS_DATA_DIR.', { pattern: '^/' }),
      }),
      replicaCount: integer('Replicas (ingress mode, without autoscaling).', 0),
      strategy: kubernetes('Deployment strategy; empty: chosen from the store.'),
      autoscaling: object('HorizontalPodAutoscaler.', {
        enabled: boolean('Scale on CPU (and memory).'),
        minReplicas: integer('Fewest replicas.', 1),
        maxReplicas: integer('Most replicas.', 1),
        targetCPUUtilizationPercentage: integer('CPU target; 0: none.'),
        targetMemoryUtilizationPercentage: integer('Memory target; 0: none.'),
      }),
      podDisruptionBudget: object('PodDisruptionBudget (ingress mode).', {
        enabled: boolean('Create it.'),
        minAvailable: { type: ['integer', 'string'] },
        maxUnavailable: { type: ['integer', 'string'] },
      }),
      resources: kubernetes('Container resources.'),
      podSecurityContext: kubernetes(
        'Pod securityContext (ingress mode): fsGroup of the data volume.',
      ),
      securityContext: kubernetes(
        'Container securityContext, with the user: the sidecar changes nothing pod-wide.',
      ),
      probes: object('Probe timings (paths and ports are fixed).', {
        liveness: probe('/healthz.'),
        readiness: probe('/readyz.'),
        startup: probe('/healthz, until the gateway listens.'),
      }),
      terminationGracePeriodSeconds: integer('Pod termination grace period.', 1),
      preStopSleepSeconds: integer('Sleep before SIGTERM; 0: none.'),
      extraEnv: kubernetesList('More container env entries.'),
      extraVolumes: kubernetesList('More pod volumes.'),
      extraVolumeMounts: kubernetesList('More container volume mounts.'),
      podAnnotations: labels('Pod annotations.'),
      podLabels: labels('Pod labels.'),
      nodeSelector: labels('Pod nodeSelector.'),
      tolerations: kubernetesList('Pod tolerations.'),
      affinity: kubernetes('Pod affinity.'),
      topologySpreadConstraints: kubernetesList('Pod topology spread constraints.'),
      priorityClassName: string('Pod priority class.'),
      serviceAccount: object('The pod’s Kubernetes service account.', {
        create: boolean('Create one (without an API token).'),
        name: string('Its name; empty: the full name.'),
        annotations: labels('Its annotations.'),
      }),
      service: object('The proxy Service.', {
        type: { type: 'string', enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] },
        port: port('Service port.'),
        annotations: labels('Service annotations.'),
      }),
      ingress: object('An Ingress to the proxy Service.', {
        enabled: boolean('Create it.'),
        className: string('ingressClassName.'),
        annotations: labels('Ingress annotations.'),
        hosts: {
          type: 'array',
          items: {
            ...object('A host.', {
              host: string('Host name.'),
              paths: {
                type: 'array',
                items: {
                  ...object('A path.', {
                    path: string('Path.', { pattern: '^/' }),
                    pathType: {
                      type: 'string',
                      enum: ['Prefix', 'Exact', 'ImplementationSpecific'],
                    },
                  }),
                  required: ['path', 'pathType'],
                },
              },
            }),
            required: ['host', 'paths'],
          },
        },
        tls: kubernetesList('Ingress tls entries.'),
      }),
      networkPolicy: object('NetworkPolicies: only Portcullis reaches AgentOS.', {
        enabled: boolean('Create them.'),
        proxyFrom: kubernetesList('Peers allowed on the proxy port; empty: any.'),
        adminFrom: kubernetesList('Peers allowed on the admin port; empty: any.'),
        backend: object('The AgentOS pods (ingress mode).', {
          podSelector: labels('Their labels (required when enabled).'),
          namespace: string('Their namespace; empty: the release namespace.'),
          port: port('The AgentOS port (in sidecar mode, the port the pod never admits).'),
          extraFrom: kubernetesList('Other peers allowed to reach AgentOS.'),
        }),
        otherPorts: {
          type: 'string',
          enum: ['open', 'closed'],
          description:
            'Sidecar mode: the AgentOS pods’ other ports. open: admitted from anywhere (AgentOS’s port stays closed); closed: only what other policies admit.',
        },
        egress: object('The gateway’s own egress (ingress mode).', {
          restrict: boolean('Only DNS, the backend and `to`.'),
          to: kubernetesList('More egress rules (e.g. PostgreSQL).'),
        }),
      }),
      sidecar: object('Sidecar mode.', {
        podSelector: labels('Labels of the AgentOS pods carrying Portcullis (required).'),
        native: boolean(
          'A native sidecar (init container with restartPolicy: Always, Kubernetes 1.29+); false: an ordinary container.',
        ),
      }),
      metrics: object('Monitoring.', {
        serviceMonitor: object('prometheus-operator ServiceMonitor.', {
          enabled: boolean('Create it.'),
          interval: string('Scrape interval.'),
          scrapeTimeout: string('Scrape timeout.'),
          labels: labels('Extra labels (your Prometheus’s selector).'),
        }),
        prometheusRule: object('prometheus-operator PrometheusRule with the alert rules.', {
          enabled: boolean('Create it.'),
          labels: labels('Extra labels (your Prometheus’s rule selector).'),
        }),
        grafanaDashboard: object('The dashboard as a ConfigMap for the Grafana sidecar.', {
          enabled: boolean('Create it.'),
          labels: labels('Labels the sidecar watches.'),
          annotations: labels('Annotations (e.g. the folder).'),
        }),
      }),
    },
  }
}
