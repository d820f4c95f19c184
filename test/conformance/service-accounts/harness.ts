/**
 * Checklist part F–I run once per store kind: the same line tests against the embedded store
 * (PGlite, the default) and against a throwaway PostgreSQL server (one per test file, a fresh
 * database per gateway), each kind in a test file of its own.
 */
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import pg from 'pg'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import type { ServiceAccounts } from '../../../src/service-accounts/start-service-accounts.js'
import type { ConfigInput, TestGateway } from '../../helpers/gateway.js'
import { postgresSkipReason, startPostgres, type PostgresServer } from '../../helpers/postgres.js'
import type { Reply, Stack } from '../fixtures.js'

export type StoreKind = 'embedded' | 'postgres'

/** One store kind, as the line tests see it. */
export interface StoreUnderTest {
  readonly kind: StoreKind
  /** Config sections for a gateway with service accounts on a fresh, empty store of this kind. */
  section(serviceAccounts?: ConfigInput): Promise<ConfigInput>
  /**
   * Revokes in the database behind the gateway's back, as another worker would with no
   * notification reaching this one (PostgreSQL: a plain UPDATE, no NOTIFY; embedded: the
   * gateway's subscription is dropped first, then the store revokes).
   */
  revokeUnannounced(gateway: TestGateway, id: string): Promise<void>
  /** Makes the store fail; resolves to a function that brings it back, or null if it cannot. */
  breakStore(gateway: TestGateway): Promise<(() => Promise<void>) | null>
}

let selected: StoreKind | undefined

/**
 * Runs a part (`f-mint-request.ts`, …) on one store kind. Each part has a test file per kind
 * (`<part>.embedded.test.ts`, `<part>.postgres.test.ts`), so that the two run side by side and
 * neither file comes near the test runner's time limit: the file names its kind, then loads the
 * part, whose `onStore` runs on that kind.
 */
export async function runPart(kind: StoreKind, load: () => Promise<unknown>): Promise<void> {
  selected = kind
  await load()
}

/** The store kind of this test file (set by runPart). */
export function storeKind(): StoreKind {
  if (selected === undefined) throw new Error('load the part through runPart(kind, …)')
  return selected
}

/**
 * Runs `suite` on this file's store kind: the embedded store, or PostgreSQL (skipped loudly
 * without binaries).
 */
export function onStore(t: Test, suite: (t: Test, store: StoreUnderTest) => Promise<void>): void {
  if (storeKind() === 'embedded')
    void t.test('embedded store (PGlite)', (t) => suite(t, embeddedStore))
  else
    void t.test('postgres store', { skip: postgresSkipReason() }, async (t) => {
      await suite(t, postgresStore(await startPostgres(t)))
    })
}

const embeddedStore: StoreUnderTest = {
  kind: 'embedded',
  // startGateway gives every gateway its own pre-migrated PGlite directory.
  section: async (serviceAccounts = {}) => ({
    service_accounts: { enabled: true, ...serviceAccounts },
  }),
  async revokeUnannounced(gateway, id) {
    const accounts = subsystem(gateway)
    accounts.revocations.stop()
    await accounts.store.revoke(id, Math.floor(Date.now() / 1000))
  },
  async breakStore(gateway) {
    await subsystem(gateway).store.close()
    return null
  },
}

function postgresStore(server: PostgresServer): StoreUnderTest {
  return {
    kind: 'postgres',
    section: async (serviceAccounts = {}) => ({
      service_accounts: { enabled: true, ...serviceAccounts },
      database: {
        url: await server.createDatabase(),
        connect_timeout_ms: 1_000,
        query_timeout_ms: 1_000,
      },
    }),
    async revokeUnannounced(gateway, id) {
      await sql(gateway, 'UPDATE portcullis_service_accounts SET revoked_at = $2 WHERE id = $1', [
        id,
        Math.floor(Date.now() / 1000),
      ])
    },
    async breakStore() {
      await server.stop()
      return () => server.start()
    },
  }
}

/**
 * A token that fails in one of three ways, by `index`: unknown (well formed), a wrong checksum,
 * too short. Each counts as one failed lookup.
 */
export function badToken(index: number): string {
  const token = mintToken().token
  if (index % 3 === 1) return `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`
  if (index % 3 === 2) return `svc_pat_${token.slice(8, 20)}`
  return token
}

/** One statement on the gateway's PostgreSQL database, on a connection of its own. */
export async function sql(
  gateway: TestGateway,
  text: string,
  params: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  const url = gateway.config.database.url
  if (url === null) throw new Error('the gateway has no PostgreSQL database')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<Record<string, unknown>>(text, params)).rows
  } finally {
    await client.end()
  }
}

export function subsystem(gateway: TestGateway): ServiceAccounts {
  const accounts = gateway.gateway.serviceAccounts
  if (accounts === undefined) throw new Error('service accounts are off on this gateway')
  return accounts
}

export interface SeededAccount {
  readonly id: string
  readonly name: string
  readonly token: string
}

/**
 * An account written straight into the gateway's store, for fixtures where no caller may mint
 * (open mode) or a state the API cannot produce (an expiry in the past).
 */
export async function seedAccount(
  gateway: TestGateway,
  name: string,
  scopes: readonly string[],
  expiresAt: number | null = Math.floor(Date.now() / 1000) + 86_400,
): Promise<SeededAccount> {
  const { token, hash, prefix } = mintToken()
  const record = await subsystem(gateway).store.create({
    id: randomUUID(),
    name,
    userId: 'seeded',
    tokenHash: hash,
    tokenPrefix: prefix,
    scopes,
    createdAt: Math.floor(Date.now() / 1000),
    expiresAt,
    createdBy: 'seeded',
  })
  return { id: record.id, name, token }
}

export interface MintedAccount {
  readonly id: string
  readonly token: string
  readonly body: Record<string, unknown>
}

/** Mints through the gateway's API; throws unless it answers 201. */
export async function mint(
  fixture: Stack,
  credential: string,
  body: Record<string, unknown>,
): Promise<MintedAccount> {
  const reply = await fixture.call('POST', '/service-accounts', { token: credential, json: body })
  if (reply.status !== 201) throw new Error(`mint: ${reply.status} ${reply.text}`)
  const minted = reply.body as Record<string, unknown> & { id: string; token: string }
  return { id: minted.id, token: minted.token, body: minted }
}

/** `[{scope}]` items of a mint body. */
export const grants = (...scopes: string[]): { scope: string }[] =>
  scopes.map((scope) => ({ scope }))

/** The checklist's default scopes, in AgentOS's order. */
export const DEFAULT_SCOPES = [
  'agents:run',
  'teams:run',
  'workflows:run',
  'sessions:read',
  'config:read',
]

/** A refusal by the gateway: this status and exact detail, and the upstream saw nothing. */
export function refused(t: Test, reply: Reply, status: number, detail: unknown): void {
  t.equal(
    reply.status,
    status,
    `status ${status}${reply.status === status ? '' : `: ${reply.text}`}`,
  )
  t.same(reply.detail, detail, 'detail')
  t.equal(reply.upstream, undefined, 'the upstream saw nothing')
}

/** The request reached the upstream, which answered with this status. */
export function forwarded(t: Test, reply: Reply, status: number, path?: string): void {
  t.equal(
    reply.status,
    status,
    `status ${status}${reply.status === status ? '' : `: ${reply.text}`}`,
  )
  t.not(reply.upstream, undefined, 'the upstream received it')
  if (path !== undefined) t.equal(reply.upstream?.path, path, 'at the same path')
}

/** A 422 whose first issue has this pydantic type at this location. */
export function invalidBody(t: Test, reply: Reply, type: string, loc: (string | number)[]): void {
  t.equal(reply.status, 422, `422${reply.status === 422 ? '' : `: ${reply.status} ${reply.text}`}`)
  t.match(firstIssue(reply), { type, loc, msg: String }, `${type} at ${loc.join('.')}`)
  t.equal(reply.upstream, undefined, 'the upstream saw nothing')
}

/** The first item of a 422 body's `detail` list. */
export function firstIssue(reply: Reply): unknown {
  return Array.isArray(reply.detail) ? (reply.detail as unknown[])[0] : undefined
}

/** Polls an async condition until it holds; rejects after `timeoutMs` naming `what`. */
export async function pollUntil(
  condition: () => Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000)
