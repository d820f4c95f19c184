import { readFileSync } from 'node:fs'
import { parse, parseAllDocuments } from 'yaml'
import { loadChart, renderChart, type RenderedChart } from '../../helpers/helm-render.js'
import { projectPath } from '../../helpers/project-root.js'

export const CHART_DIR = projectPath('helm/portcullis/')
export const chart = loadChart(CHART_DIR)

export type Manifest = Record<string, unknown> & {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string; labels?: Record<string, string> }
}

export interface Rendered {
  readonly chart: RenderedChart
  readonly manifests: readonly Manifest[]
  /** YAML errors per template path (empty when every document is well formed). */
  readonly errors: readonly string[]
}

export const RELEASE = 'portcullis'
export const NAMESPACE = 'agents'

export function exampleValues(name: string): Record<string, unknown> {
  return parse(readFileSync(`${CHART_DIR}examples/${name}`, 'utf8')) as Record<string, unknown>
}

/** `helm template portcullis helm/portcullis -n agents -f <values>`, parsed. */
export function render(values: Record<string, unknown> = {}): Rendered {
  const rendered = renderChart(chart, { values, releaseName: RELEASE, namespace: NAMESPACE })
  const manifests: Manifest[] = []
  const errors: string[] = []
  for (const [path, text] of rendered.manifests) {
    for (const document of parseAllDocuments(text, { uniqueKeys: true })) {
      for (const error of [...document.errors, ...document.warnings])
        errors.push(`${path}: ${error.message}`)
      const value: unknown = document.toJS()
      if (value === null || value === undefined) continue
      manifests.push(value as Manifest)
    }
  }
  return { chart: rendered, manifests, errors }
}

export function find(rendered: Rendered, kind: string, name?: string): Manifest[] {
  return rendered.manifests.filter(
    (manifest) => manifest.kind === kind && (name === undefined || manifest.metadata.name === name),
  )
}

export function only(rendered: Rendered, kind: string, name?: string): Manifest {
  const found = find(rendered, kind, name)
  if (found.length !== 1)
    throw new Error(`${found.length} ${kind}${name === undefined ? '' : ` ${name}`} rendered`)
  return found[0] as Manifest
}

/** The `data` of a ConfigMap or Secret. */
export function dataOf(manifest: Manifest): Record<string, string> {
  return (manifest as unknown as { data: Record<string, string> }).data
}

// Shapes of the parts the tests read.
export interface EnvVar {
  name: string
  value?: string
  valueFrom?: { secretKeyRef: { name: string; key: string } }
}
export interface Container {
  name: string
  restartPolicy?: string
  lifecycle?: { preStop?: { exec: { command: string[] } } }
  args: string[]
  ports: { name: string; containerPort: number }[]
  env: EnvVar[]
  livenessProbe: { httpGet: { path: string; port: string } }
  readinessProbe: { httpGet: { path: string; port: string } }
  startupProbe: { httpGet: { path: string; port: string } }
  securityContext: Record<string, unknown> & { capabilities?: { drop?: string[] } }
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[]
}
export interface Volume {
  name: string
  configMap?: { name: string }
  secret?: { secretName: string; items?: { key: string; path: string }[] }
  persistentVolumeClaim?: { claimName: string }
  emptyDir?: Record<string, never>
}
export interface PodSpec {
  containers: Container[]
  initContainers?: Container[]
  volumes: Volume[]
  securityContext: Record<string, unknown>
}

export function podTemplate(deployment: Manifest): {
  metadata: { labels: Record<string, string>; annotations: Record<string, string> }
  spec: PodSpec
} {
  return (deployment.spec as { template: ReturnType<typeof podTemplate> }).template
}

export function env(container: Container, name: string): EnvVar | undefined {
  return container.env.find((variable) => variable.name === name)
}

export type SidecarPatch = { spec: { template: { spec: Partial<PodSpec> } } }

/** The sidecar patch NOTES.txt prints between its two `---` lines. */
export function sidecarPatch(notes: string): SidecarPatch {
  const parts = notes.split(/^---$/m)
  if (parts.length !== 3) throw new Error('NOTES.txt has no patch between two --- lines')
  return parse(parts[1] as string) as SidecarPatch
}

/**
 * `kubectl patch --type strategic` for what a sidecar patch holds: maps merge key by key; the
 * pod's lists of containers, init containers and volumes merge by name (their patchMergeKey), an
 * entry merging into the one of the same name, a new one appended; other lists are replaced.
 */
export function strategicMerge(target: unknown, patch: unknown, key?: string): unknown {
  if (
    Array.isArray(target) &&
    Array.isArray(patch) &&
    key !== undefined &&
    MERGED_BY_NAME.has(key)
  ) {
    const merged = [...(target as { name: string }[])]
    for (const item of patch as { name: string }[]) {
      const at = merged.findIndex((existing) => existing.name === item.name)
      if (at === -1) merged.push(item)
      else merged[at] = strategicMerge(merged[at], item) as { name: string }
    }
    return merged
  }
  if (isObject(target) && isObject(patch)) {
    const merged: Record<string, unknown> = { ...target }
    for (const [name, value] of Object.entries(patch))
      merged[name] = name in target ? strategicMerge(target[name], value, name) : value
    return merged
  }
  return patch
}

const MERGED_BY_NAME = new Set(['containers', 'initContainers', 'volumes'])

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
