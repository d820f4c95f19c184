import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'
import { configSchema } from '../../../src/config/schema.js'
import { mergeValues } from '../../helpers/helm-render.js'
import { validate } from './json-schema.js'
import { projectPath } from '../../helpers/project-root.js'

const CHART = projectPath('helm/portcullis/')
const FIXTURES = projectPath('test/fixtures/configs/')

type Values = Record<string, unknown>

const schema = JSON.parse(readFileSync(`${CHART}values.schema.json`, 'utf8')) as Values
const defaults = parse(readFileSync(`${CHART}values.yaml`, 'utf8')) as Values
const examples = readdirSync(`${CHART}examples`).filter((name) => name.endsWith('.yaml'))
const configPart = (schema.properties as Record<string, Values>).config as Values

void t.test('values.yaml validates against values.schema.json', async (t) => {
  t.same(validate(schema, defaults), [])
})

void t.test('every example validates alone and merged over values.yaml', async (t) => {
  t.same(examples.sort(), [
    'idp-auth0-values.yaml',
    'idp-entra-id-values.yaml',
    'idp-google-values.yaml',
    'idp-keycloak-values.yaml',
    'idp-okta-values.yaml',
    'ingress-jwks-values.yaml',
    'ingress-postgres-values.yaml',
    'sidecar-values.yaml',
  ])
  for (const name of examples) {
    const example = parse(readFileSync(`${CHART}examples/${name}`, 'utf8')) as Values
    t.same(validate(schema, example), [], `${name} alone`)
    t.same(validate(schema, mergeValues(defaults, example)), [], `${name} merged`)
    const config = mergeValues(defaults, example).config
    t.ok(configSchema.safeParse(config).success, `${name}: config passes the gateway's own schema`)
  }
})

void t.test('the schema refuses wrong values, naming the key', async (t) => {
  const cases: [string, Values, string][] = [
    ['an unknown top-level key', { replicas: 3 }, '$.replicas'],
    ['an unknown mode', { mode: 'gateway' }, '$.mode'],
    ['a port out of range', { ports: { proxy: 0 } }, '$.ports.proxy'],
    ['an upstream that is not a URL', { upstream: { url: 'agentos:7777' } }, '$.upstream.url'],
    [
      'an existingSecret with an empty key',
      { database: { existingSecret: { name: 'db', key: '' } } },
      '$.database.existingSecret.key',
    ],
    ['a misspelled config section', { config: { upstreem: {} } }, '$.config.upstreem'],
    [
      'a misspelled config key',
      { config: { auth: { admin_scop: 'x' } } },
      '$.config.auth.admin_scop',
    ],
    ['alg none', { config: { auth: { algorithm: 'none' } } }, '$.config.auth.algorithm'],
    [
      'a wrong config type',
      { config: { logging: { access_log: 1 } } },
      '$.config.logging.access_log',
    ],
    [
      'a bad scope mapping key',
      { config: { auth: { scope_mappings: { '/agents': [] } } } },
      '$.config.auth.scope_mappings',
    ],
  ]
  for (const [what, values, path] of cases) {
    const problems = validate(schema, mergeValues(defaults, values))
    t.ok(
      problems.some((problem) => problem.path === path),
      `${what}: refused at ${path} (${JSON.stringify(problems)})`,
    )
  }
})

void t.test(
  'values.config accepts what the gateway accepts, refuses what it refuses',
  async (t) => {
    const files = [
      ...readdirSync(FIXTURES)
        .filter((name) => name.endsWith('.yaml'))
        .map((name) => `${FIXTURES}${name}`),
      projectPath('config/portcullis.yaml'),
      projectPath('config/demo.yaml'),
    ]
    let accepted = 0
    for (const file of files) {
      let raw: unknown
      try {
        raw = parse(readFileSync(file, 'utf8'), { uniqueKeys: true })
      } catch {
        continue // not YAML the schema could see
      }
      if (configSchema.safeParse(raw ?? {}).success) {
        accepted++
        t.same(validate(configPart, raw ?? {}), [], `${file}: valid for the gateway, valid here`)
      }
    }
    t.ok(accepted >= 5, `${accepted} valid configs compared`)
    for (const name of ['unknown-root-key', 'unknown-nested-key', 'wrong-types', 'bad-enum']) {
      const raw = parse(readFileSync(`${FIXTURES}${name}.yaml`, 'utf8')) as Values
      t.ok(validate(configPart, raw).length > 0, `${name}.yaml is refused here too`)
    }
  },
)

/** Leaf keys of values.yaml; `config` and free-form Kubernetes objects count as one key. */
function valuePaths(values: Values, prefix = ''): string[] {
  const opaque = new Set(['config', 'resources', 'podSecurityContext', 'securityContext'])
  return Object.entries(values).flatMap(([key, value]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`
    const nested =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.keys(value).length > 0
    return nested && !opaque.has(path) && !path.endsWith('labels')
      ? valuePaths(value as Values, path)
      : [path]
  })
}

void t.test('the chart README documents every value, and only existing ones', async (t) => {
  const readme = readFileSync(`${CHART}README.md`, 'utf8')
  const rows = [...readme.matchAll(/^\| ((?:`[a-zA-Z.]+`(?:, )?)+) \|/gm)].flatMap((match) =>
    [...(match[1] as string).matchAll(/`([a-zA-Z.]+)`/g)].map((key) => key[1] as string),
  )
  const paths = valuePaths(defaults)
  t.ok(paths.length > 60, `${paths.length} values`)
  for (const path of paths)
    t.ok(
      rows.some((row) => path === row || path.startsWith(`${row}.`)),
      `${path} is documented in helm/portcullis/README.md`,
    )
  for (const row of rows)
    t.ok(
      paths.some((path) => path === row || path.startsWith(`${row}.`)) ||
        row === 'podDisruptionBudget.minAvailable',
      `documented ${row} exists in values.yaml`,
    )
})
