import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import t from 'tap'
import { NO_CREDENTIAL_SOURCE } from '../../../src/config/auth-mode.js'
import { parseConfig } from '../../../src/config/load.js'
import { fixtures } from '../../helpers/jwt.js'
import {
  dataOf,
  env,
  exampleValues,
  only,
  podTemplate,
  render,
  type Container,
  type PodSpec,
  type Rendered,
} from './chart.js'

function pod(rendered: Rendered): { spec: PodSpec; container: Container } {
  const spec = podTemplate(only(rendered, 'Deployment')).spec
  if (spec.containers.length !== 1) throw new Error(`${spec.containers.length} containers`)
  return { spec, container: spec.containers[0] as Container }
}

const CASES: [string, Record<string, unknown>][] = [
  ['default values', {}],
  ['ingress-postgres-values.yaml', exampleValues('ingress-postgres-values.yaml')],
  ['ingress-jwks-values.yaml', exampleValues('ingress-jwks-values.yaml')],
]

void t.test(
  'probes, ports and config: liveness /healthz and readiness /readyz on the admin port',
  async (t) => {
    for (const [name, values] of CASES) {
      const rendered = render(values)
      const { spec, container } = pod(rendered)
      const portOf = (portName: string): number | undefined =>
        container.ports.find((port) => port.name === portName)?.containerPort
      t.equal(container.livenessProbe.httpGet.path, '/healthz', `${name}: liveness path`)
      t.equal(container.readinessProbe.httpGet.path, '/readyz', `${name}: readiness path`)
      t.equal(container.startupProbe.httpGet.path, '/healthz', `${name}: startup path`)
      for (const probe of [
        container.livenessProbe,
        container.readinessProbe,
        container.startupProbe,
      ])
        t.equal(portOf(probe.httpGet.port), 9090, `${name}: probe on the admin port`)
      t.equal(env(container, 'PORTCULLIS_ADMIN_PORT')?.value, '9090', `${name}: admin port env`)
      t.equal(
        env(container, 'PORTCULLIS_PORT')?.value,
        String(portOf('gateway')),
        `${name}: proxy port env`,
      )
      t.same(container.args.slice(0, 2), ['serve', '--config'], `${name}: serve`)
      t.equal(container.restartPolicy, undefined, `${name}: an ordinary container`)
      t.same(container.lifecycle?.preStop?.exec.command, ['sleep', '5'], `${name}: preStop sleep`)
      const configPath = container.args[2] as string
      const mount = container.volumeMounts.find((m) => configPath.startsWith(`${m.mountPath}/`))
      const volume = spec.volumes.find((v) => v.name === mount?.name)
      t.equal(volume?.configMap?.name, 'portcullis', `${name}: the config comes from the ConfigMap`)
      const configData = dataOf(only(rendered, 'ConfigMap', 'portcullis'))
      t.ok(configPath.endsWith(`/${Object.keys(configData)[0] ?? ''}`), `${name}: file name`)
    }
    const moved = pod(render({ ports: { admin: 9191 } })).container
    t.equal(moved.ports.find((port) => port.name === 'gateway-admin')?.containerPort, 9191)
    t.equal(env(moved, 'PORTCULLIS_ADMIN_PORT')?.value, '9191', 'the probes follow ports.admin')
  },
)

void t.test(
  'non-root, read-only root filesystem; only /tmp and the data dir are writable',
  async (t) => {
    for (const [name, values] of CASES) {
      const { spec, container } = pod(render(values))
      t.equal(container.securityContext.runAsNonRoot, true, `${name}: runAsNonRoot`)
      t.equal(container.securityContext.runAsUser, 1000, `${name}: the image's node user`)
      t.same(container.securityContext.seccompProfile, { type: 'RuntimeDefault' })
      t.same(
        spec.securityContext,
        { fsGroup: 1000, fsGroupChangePolicy: 'OnRootMismatch' },
        `${name}: pod-wide only the data volume's group; the user is the container's`,
      )
      t.equal(container.securityContext.readOnlyRootFilesystem, true, `${name}: read-only root`)
      t.equal(container.securityContext.allowPrivilegeEscalation, false, `${name}: no escalation`)
      t.same(container.securityContext.capabilities?.drop, ['ALL'], `${name}: no capabilities`)
      const writable = container.volumeMounts
        .filter((m) => m.readOnly !== true)
        .map((m) => m.mountPath)
      const dataDir = env(container, 'PORTCULLIS_DATA_DIR')?.value
      t.same(
        writable.sort(),
        ['/tmp', ...(dataDir === undefined ? [] : [dirname(dataDir)])].sort(),
        `${name}: writable mounts`,
      )
    }
  },
)

void t.test(
  'the embedded store: PORTCULLIS_DATA_DIR on a volume claim (or emptyDir), Recreate',
  async (t) => {
    const rendered = render()
    const { spec, container } = pod(rendered)
    const dataDir = env(container, 'PORTCULLIS_DATA_DIR')?.value
    t.equal(dataDir, '/var/lib/portcullis/db', 'a subdirectory the gateway creates private')
    const mount = container.volumeMounts.find((m) => m.mountPath === '/var/lib/portcullis')
    t.equal(
      (spec.securityContext as { fsGroupChangePolicy?: string }).fsGroupChangePolicy,
      'OnRootMismatch',
      'the kubelet does not reopen the store’s files to the group on every mount',
    )
    const volume = spec.volumes.find((v) => v.name === mount?.name)
    t.equal(volume?.persistentVolumeClaim?.claimName, 'portcullis-data')
    only(rendered, 'PersistentVolumeClaim', 'portcullis-data')
    t.same((only(rendered, 'Deployment').spec as { strategy: unknown }).strategy, {
      type: 'Recreate',
    })
    t.equal(env(container, 'DATABASE_URL'), undefined)

    const ephemeral = pod(render({ persistence: { enabled: false } }))
    t.same(
      ephemeral.spec.volumes.find((v) => v.name === 'portcullis-data')?.emptyDir,
      {},
      'emptyDir when not persistent',
    )
  },
)

void t.test('secrets: inline values go to the chart Secret, references to yours', async (t) => {
  const jwks = readFileSync(fixtures.jwksPath, 'utf8')
  const inline = render({
    securityKey: { value: 'the-security-key' },
    jwt: { verificationKey: { value: 'an-hs-secret' }, jwks: { value: jwks } },
    database: { url: 'postgresql://u:p@db:5432/portcullis' },
  })
  const secret = dataOf(only(inline, 'Secret', 'portcullis'))
  const decoded = Object.fromEntries(
    Object.entries(secret).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
  )
  t.same(decoded, {
    'security-key': 'the-security-key',
    'verification-key': 'an-hs-secret',
    'jwks.json': jwks,
    'database-url': 'postgresql://u:p@db:5432/portcullis',
  })
  const { spec, container } = pod(inline)
  const ref = (name: string) => env(container, name)?.valueFrom?.secretKeyRef
  t.same(ref('OS_SECURITY_KEY'), { name: 'portcullis', key: 'security-key' })
  t.same(ref('JWT_VERIFICATION_KEY'), { name: 'portcullis', key: 'verification-key' })
  t.same(ref('DATABASE_URL'), { name: 'portcullis', key: 'database-url' })
  t.equal(env(container, 'JWT_JWKS_FILE')?.value, '/etc/portcullis/jwks/jwks.json')
  t.same(spec.volumes.find((v) => v.name === 'portcullis-jwks')?.secret, {
    secretName: 'portcullis',
    items: [{ key: 'jwks.json', path: 'jwks.json' }],
  })
  t.equal(env(container, 'PORTCULLIS_DATA_DIR'), undefined, 'no data dir with PostgreSQL')
  t.equal(inline.manifests.filter((m) => m.kind === 'PersistentVolumeClaim').length, 0, 'no claim')

  const postgres = pod(render(exampleValues('ingress-postgres-values.yaml'))).container
  t.same(postgres.env.find((v) => v.name === 'OS_SECURITY_KEY')?.valueFrom?.secretKeyRef, {
    name: 'portcullis-credentials',
    key: 'security-key',
  })
  t.same(postgres.env.find((v) => v.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef, {
    name: 'portcullis-credentials',
    key: 'database-url',
  })
  const jwksPod = pod(render(exampleValues('ingress-jwks-values.yaml')))
  t.same(jwksPod.spec.volumes.find((v) => v.name === 'portcullis-jwks')?.secret, {
    secretName: 'idp-jwks',
    items: [{ key: 'jwks.json', path: 'jwks.json' }],
  })
  const jwksMount = jwksPod.container.volumeMounts.find((m) => m.name === 'portcullis-jwks')
  t.equal(`${jwksMount?.mountPath ?? ''}/jwks.json`, env(jwksPod.container, 'JWT_JWKS_FILE')?.value)
  t.equal(jwksMount?.readOnly, true)
})

void t.test(
  'the rendered config file passes the gateway’s own loader with the pod’s env',
  async (t) => {
    const jwks = readFileSync(fixtures.jwksPath, 'utf8')
    const openOnPurpose: [string, Record<string, unknown>] = [
      'default values, open on purpose',
      { config: { auth: { open: true } } },
    ]
    for (const [name, values] of [...CASES, openOnPurpose]) {
      const rendered = render(values)
      const { container } = pod(rendered)
      const configData = dataOf(only(rendered, 'ConfigMap', 'portcullis'))
      const podEnv: Record<string, string> = {}
      for (const variable of container.env)
        podEnv[variable.name] =
          variable.value ??
          (variable.name === 'DATABASE_URL'
            ? 'postgresql://db/p'
            : 'a-secret-value-of-the-strength-required')
      const load = () =>
        parseConfig(configData['portcullis.yaml'] as string, name, {
          env: podEnv,
          readFile: (path) => {
            if (path === podEnv.JWT_JWKS_FILE) return jwks
            throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' })
          },
        })
      if (name === 'default values') {
        // No key, no JWT source, no auth.open: the pod must refuse to start, not run open.
        t.throws(
          load,
          { message: `invalid configuration in ${name}: ${NO_CREDENTIAL_SOURCE}` },
          `${name}: refused, never open`,
        )
        continue
      }
      const config = load()
      t.equal(config.server.port, 8080, `${name}: port from the env`)
      t.equal(config.server.admin_port, 9090, `${name}: admin port from the env`)
      t.equal(config.server.admin_host, '0.0.0.0', `${name}: admin listener on the pod address`)
      t.equal(config.upstream.url, podEnv.PORTCULLIS_UPSTREAM_URL, `${name}: upstream from the env`)
    }
  },
)

void t.test(
  'checksum annotations change with the config and the secrets, and only then',
  async (t) => {
    const annotations = (values: Record<string, unknown>) =>
      podTemplate(only(render(values), 'Deployment')).metadata.annotations
    const base = annotations({})
    t.match(base['checksum/config'], /^[0-9a-f]{64}$/)
    t.same(annotations({}), base, 'stable')
    const config = annotations({ config: { logging: { level: 'debug' } } })
    t.not(config['checksum/config'], base['checksum/config'], 'config change rolls the pods')
    t.equal(config['checksum/secret'], base['checksum/secret'])
    const secret = annotations({ securityKey: { value: 'rotated' } })
    t.not(secret['checksum/secret'], base['checksum/secret'], 'secret change rolls the pods')
    t.equal(secret['checksum/config'], base['checksum/config'])
    const watched = annotations({ config: { server: { watch_config: true } } })
    t.equal(watched['checksum/config'], undefined, 'watch_config: the gateway reloads, no roll')
    t.equal(watched['checksum/secret'], base['checksum/secret'])
  },
)
