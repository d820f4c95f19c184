import { randomBytes } from 'node:crypto'
import t from 'tap'
import { startGateway } from '../../helpers/gateway.js'
import { remoteJwksAuth, startJwksServer } from '../../helpers/jwks-server.js'
import { fixtures, publicJwk, signJwt } from '../../helpers/jwt.js'
import { parseMetrics } from '../../helpers/metrics.js'
import { startRuntime } from '../../helpers/runtime.js'
import { WsClient, refusedHandshake } from '../../helpers/websocket.js'
import { readCatalogue, type DocumentedMetric } from '../../unit/ops/metrics-catalogue.js'

/**
 * docs/metrics.md is the catalogue of every metric: a gateway with every subsystem on (a JWKS
 * file and a remote JWKS, service accounts, WebSockets, process metrics) is exercised, then its
 * /metrics must list exactly the documented families, with documented types and labels, and no
 * label value may carry anything request-specific (paths, user ids, account names and ids, key
 * ids, tokens).
 */

const catalogue = readCatalogue()
const random = (): string => `r${randomBytes(6).toString('hex')}`

interface Family {
  readonly type: string
  readonly labels: Set<string>
}

/** Families by `# TYPE`, with the label names their samples carry (le/quantile excluded). */
function families(text: string): Map<string, Family> {
  const found = new Map<string, Family>()
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm))
    found.set(match[1] as string, { type: match[2] as string, labels: new Set() })
  for (const sample of parseMetrics(text)) {
    const name = [...found.keys()].find(
      (family) =>
        sample.name === family ||
        (sample.name.startsWith(family) &&
          /^_(bucket|sum|count)$/.test(sample.name.slice(family.length)) &&
          ['histogram', 'summary'].includes(found.get(family)?.type ?? '')),
    )
    if (name === undefined) continue
    for (const label of Object.keys(sample.labels))
      if (label !== 'le' && label !== 'quantile') found.get(name)?.labels.add(label)
  }
  return found
}

void t.test(
  'every metric is documented, every documented metric exists, labels are bounded',
  async (t) => {
    const runtime = await startRuntime(t)
    const provider = await startJwksServer(t, [
      publicJwk(fixtures.rsa2PublicPem(), { kid: 'remote-key' }),
    ])
    const gateway = await startGateway(
      t,
      {
        upstream: { url: runtime.url },
        auth: {
          jwks_file: fixtures.jwksPath,
          jwks_reload_cooldown_seconds: 0,
          ...remoteJwksAuth(provider),
        },
      },
      {},
      { collectProcessMetrics: true },
    )
    const secrets: string[] = []
    const remember = (value: string): string => {
      secrets.push(value)
      return value
    }
    const userId = remember(random())
    const admin = await signJwt(
      { sub: userId, scopes: ['os:admin'], exp: Math.floor(Date.now() / 1000) + 600 },
      { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'test-key-1' },
    )
    const call = async (path: string, init: RequestInit & { token?: string } = {}) => {
      const headers = new Headers(init.headers)
      if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`)
      const response = await fetch(`${gateway.url}${path}`, { ...init, headers })
      return { status: response.status, body: await response.text() }
    }

    // Random paths, with and without credentials, on known and unknown route families.
    for (const path of [
      `/${remember(random())}`,
      `/agents/${remember(random())}`,
      `/${remember(random())}/x`,
    ]) {
      await call(path)
      await call(path, { token: admin })
    }
    t.equal((await call('/agents', { token: admin })).status, 200, 'an admin JWT works')
    const unknownKid = await signJwt(
      { sub: remember(random()), scopes: ['os:admin'] },
      { alg: 'RS256', key: fixtures.rsaPrivate(), kid: remember(random()) },
    )
    t.equal(
      (await call('/agents', { token: unknownKid })).status,
      401,
      'an unknown kid re-reads the JWKS',
    )

    // Service accounts: mint (random name), use, fail, revoke.
    const name = remember(`sa-${random()}`)
    const minted = await call('/service-accounts', {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    })
    t.equal(minted.status, 201, minted.body)
    const account = JSON.parse(minted.body) as { id: string; token: string }
    remember(account.id)
    remember(account.token)
    t.equal(
      (await call(`/sessions?user_id=${remember(random())}`, { token: account.token })).status,
      200,
    )
    t.equal((await call('/sessions', { token: account.token })).status, 200, 'a cache hit')
    t.equal((await call('/sessions', { token: `svc_pat_${remember(random())}` })).status, 401)
    t.equal(
      (await call(`/service-accounts/${account.id}`, { method: 'DELETE', token: admin })).status,
      204,
    )
    t.equal((await call('/sessions', { token: account.token })).status, 401, 'revoked')

    // WebSockets: one accepted, one refused on a random path.
    const ws = await WsClient.open(t, `${gateway.url.replace('http', 'ws')}/ws/echo`, [], {
      authorization: `Bearer ${admin}`,
    })
    t.ok(
      (await refusedHandshake(t, `${gateway.url.replace('http', 'ws')}/${remember(random())}`))
        .status >= 400,
    )

    const text = await gateway.metrics()
    ws.socket.close()
    const exposed = families(text)
    const ours = [...exposed.keys()].filter((name) => name.startsWith('portcullis_'))
    t.ok(ours.length >= 30, `${ours.length} portcullis_ families exposed`)

    for (const family of ours) {
      const documented = catalogue.get(family)
      t.ok(documented, `${family} is documented in docs/metrics.md`)
      if (documented === undefined) continue
      const actual = exposed.get(family) as Family
      t.equal(actual.type, documented.type, `${family}: documented as a ${documented.type}`)
      const undocumented = [...actual.labels].filter((label) => !documented.labels.includes(label))
      t.same(undocumented, [], `${family}: every label is documented`)
      if (actual.labels.size > 0)
        t.same(
          [...actual.labels].sort(),
          [...documented.labels].sort(),
          `${family}: documented labels`,
        )
    }
    t.same(
      ours.filter((family) => family.endsWith('_total') && exposed.get(family)?.type !== 'counter'),
      [],
      'only counters end in _total (Prometheus naming)',
    )
    for (const metric of catalogue.values()) {
      if (metric.linuxOnly && process.platform !== 'linux') continue
      t.ok(exposed.has(metric.name), `documented ${metric.name} exists`)
    }
    const exercised = (metric: DocumentedMetric): boolean =>
      parseMetrics(text).some((sample) => sample.name.startsWith(metric.name) && sample.value > 0)
    for (const name of [
      'portcullis_http_requests_total',
      'portcullis_auth_outcomes_total',
      'portcullis_jwks_reloads_total',
      'portcullis_jwks_fetches_total',
      'portcullis_jwks_keys',
      'portcullis_jwks_state',
      'portcullis_service_account_cache_hits_total',
      'portcullis_service_account_revocation_notifications_total',
      'portcullis_websocket_upgrades_total',
    ])
      t.ok(exercised(catalogue.get(name) as DocumentedMetric), `${name} was exercised`)

    const values = parseMetrics(text)
      .filter((sample) => sample.name.startsWith('portcullis_'))
      .flatMap((sample) =>
        Object.entries(sample.labels).map(([label, value]) => ({ sample, label, value })),
      )
    // The one label that names an account: only accounts that exist, bounded (docs/metrics.md).
    const namesAccount = ({ sample, label }: { sample: { name: string }; label: string }) =>
      sample.name === 'portcullis_audit_refused_tokens_total' && label === 'account'
    t.same(
      values.filter(namesAccount).map(({ value }) => value),
      [name],
      'the revoked token is counted by the name of its account; the malformed one is not counted',
    )
    const leaks = values.filter(
      (value) => !namesAccount(value) && secrets.some((secret) => value.value.includes(secret)),
    )
    t.same(
      leaks.map(({ sample, label, value }) => `${sample.name}{${label}="${value}"}`),
      [],
      'no label value carries a path, user id, account, key id or token',
    )
    const routes = new Set(
      values.filter(({ label }) => label === 'route').map(({ value }) => value),
    )
    for (const route of routes)
      t.match(
        route,
        /^((\/([a-z0-9_.-]+|\{[a-z_*]+\}|\*{1,2})?)+|other|invalid)$/,
        `route label ${route} is a family or a template`,
      )
    t.ok(routes.has('other'), 'unknown paths are counted as other')
  },
)
