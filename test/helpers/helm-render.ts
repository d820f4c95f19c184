/**
 * `helm template` for tests, without helm: loads a chart directory, merges values the way Helm
 * does, and renders every template with a Go-template subset (test/helpers/go-template). The
 * subset is what the Portcullis chart uses: `.Values`, `.Release.Name/Namespace/Service`,
 * `.Chart.Name/Version/AppVersion`, `.Files.Get`; `if/else if/else`, `with`, `range` (with
 * `$k, $v :=`), `define`/`include`/`template`, `$x :=` and `$x =`, comments, `{{-`/`-}}`; and the
 * functions quote, default, empty, required, fail, toYaml, toJson, indent, nindent, trunc,
 * trimSuffix, contains, hasPrefix, sha256sum, b64enc, printf, print, int, add1, sub, hasKey, eq,
 * ne, lt, gt, and, or (short-circuit), not. Anything outside it fails loudly, so a template that renders here uses
 * only constructs whose Helm behaviour the renderer reproduces (values are float64 and template
 * integers int, so `gt .Values.n 1` fails as in Helm and big numbers print as 1e+06; a field of
 * nil is an error; `<no value>` disappears).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parse } from 'yaml'
import { Evaluator } from './go-template/evaluate.js'
import { parseTemplate, type Node } from './go-template/parse.js'
import { isMap, type GoValue } from './go-template/values.js'

export interface Chart {
  readonly dir: string
  readonly name: string
  readonly version: string
  readonly appVersion: string
  readonly values: Record<string, unknown>
  /** Template files by path relative to the chart (`templates/deployment.yaml`). */
  readonly templates: ReadonlyMap<string, string>
}

export interface RenderOptions {
  /** User values merged over the chart's values.yaml (a `-f` file). */
  readonly values?: Record<string, unknown>
  readonly releaseName?: string
  readonly namespace?: string
}

export interface RenderedChart {
  /** Output of each manifest template (not `_*.tpl`, not NOTES.txt), by path. */
  readonly manifests: ReadonlyMap<string, string>
  readonly notes: string
  /** The values the templates saw. */
  readonly values: Record<string, unknown>
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

export function loadChart(dir: string): Chart {
  const meta = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8')) as Record<string, string>
  const templates = new Map<string, string>()
  for (const path of filesUnder(join(dir, 'templates')))
    templates.set(relative(dir, path), readFileSync(path, 'utf8'))
  return {
    dir,
    name: meta.name as string,
    version: meta.version as string,
    appVersion: meta.appVersion as string,
    values: (parse(readFileSync(join(dir, 'values.yaml'), 'utf8')) ?? {}) as Record<
      string,
      unknown
    >,
    templates,
  }
}

/** Helm's coalescing: maps merge key by key, anything else is replaced, null deletes a key. */
export function mergeValues(
  base: Record<string, unknown>,
  override: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = structuredClone(base)
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key]
    if (value === null) delete merged[key]
    else if (isMap(current) && isMap(value)) merged[key] = mergeValues(current, value)
    else merged[key] = structuredClone(value)
  }
  return merged
}

/** Renders every template of the chart, as `helm template` would (before splitting on `---`). */
export function renderChart(chart: Chart, options: RenderOptions = {}): RenderedChart {
  const values = mergeValues(chart.values, options.values ?? {})
  const bodies = new Map<string, readonly Node[]>()
  const defines = new Map<string, readonly Node[]>()
  for (const [path, source] of chart.templates) {
    const parsed = parseTemplate(source, `${chart.name}/${path}`)
    bodies.set(path, parsed.body)
    for (const [name, body] of parsed.defines) defines.set(name, body)
  }
  const data: GoValue = {
    Values: values,
    Release: {
      Name: options.releaseName ?? 'release',
      Namespace: options.namespace ?? 'default',
      Service: 'Helm',
      IsInstall: true,
      IsUpgrade: false,
      Revision: 1,
    },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Files: { Get: (path: GoValue) => readChartFile(chart.dir, path) },
  }
  const evaluator = new Evaluator(defines)
  const manifests = new Map<string, string>()
  let notes = ''
  for (const [path, body] of bodies) {
    const name = path.split('/').at(-1) as string
    if (name.startsWith('_')) continue
    const output = evaluator.run(body, data).replaceAll('<no value>', '')
    if (name === 'NOTES.txt') notes = output
    else manifests.set(path, output)
  }
  return { manifests, notes, values }
}

/** `.Files.Get`: a file of the chart outside templates/, or "" when there is none. */
function readChartFile(dir: string, path: GoValue): string {
  if (typeof path !== 'string') throw new Error('.Files.Get: the path must be a string')
  if (path.startsWith('templates/') || path.includes('..')) return ''
  try {
    return readFileSync(join(dir, path), 'utf8')
  } catch {
    return ''
  }
}
