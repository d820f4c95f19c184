import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { grafanaDashboard } from './grafana-dashboard.js'
import { PACKAGE_ROOT as ROOT } from '../src/package-root.js'
import { formatLikePrettier } from './prettier-format.js'

export const DASHBOARD_PATH = 'deploy/grafana/portcullis-dashboard.json'
export const ALERTS_PATH = 'deploy/prometheus/portcullis-alerts.yaml'
/** The chart cannot read files outside its directory: it ships copies. */
export const CHART_DASHBOARD_PATH = 'helm/portcullis/files/portcullis-dashboard.json'
export const CHART_ALERTS_PATH = 'helm/portcullis/files/portcullis-alerts.yaml'

/**
 * Every generated operations file (repository-relative path → content): the dashboard JSON from
 * scripts/grafana-dashboard.ts, and the chart's copies of the dashboard and of the alert rules
 * (deploy/prometheus/portcullis-alerts.yaml is written by hand).
 */
export async function renderOpsFiles(): Promise<Map<string, string>> {
  const dashboard = await formatLikePrettier(
    JSON.stringify(grafanaDashboard()),
    join(ROOT, DASHBOARD_PATH),
  )
  const alerts = readFileSync(join(ROOT, ALERTS_PATH), 'utf8')
  return new Map([
    [DASHBOARD_PATH, dashboard],
    [CHART_DASHBOARD_PATH, dashboard],
    [CHART_ALERTS_PATH, alerts],
  ])
}

export function repositoryPath(path: string): string {
  return join(ROOT, path)
}
