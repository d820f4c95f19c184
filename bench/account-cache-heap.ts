/**
 * V8 heap per cached service account, in process and through the real verifier:
 *
 *   node --expose-gc --import tsx bench/account-cache-heap.ts [accounts] [snapshot.heapsnapshot]
 *
 * Accounts live in a map of JSON rows parsed on every lookup (fresh strings, as a database driver
 * returns them); each token is verified once; the heap growth between full collections before and
 * after, divided by the accounts, is what the cache and the last-used tracker keep per account.
 * With a file name, heap snapshots are written after both collections (`before-` and `after-`
 * prefixed to its base name), to compare what the accounts added.
 */
import { randomUUID } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import { serviceAccountsSchema } from '../src/config/sections/service-accounts.js'
import { createLogger } from '../src/logger.js'
import { parseAccountRow } from '../src/service-accounts/account-row.js'
import { ServiceAccountVerifier } from '../src/service-accounts/service-account-verifier.js'
import type { ServiceAccountStore } from '../src/service-accounts/store.js'
import { mintToken } from '../src/service-accounts/token-format.js'
import type { InboundRequest } from '../src/inbound/inbound-request.js'
import { BENCH_SCOPES } from './systems/store.js'

const accounts = Number(process.argv[2] ?? 100_000)
const snapshotFile = process.argv[3]

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with node --expose-gc')

function heapAfterGc(): number {
  for (let n = 0; n < 3; n++) gc?.()
  return process.memoryUsage().heapUsed
}

function snapshot(when: 'before' | 'after'): void {
  const file = join(dirname(snapshotFile ?? ''), `${when}-${basename(snapshotFile ?? '')}`)
  process.stdout.write(`snapshot: ${writeHeapSnapshot(file)}\n`)
}

const flat = (text: string): string => Buffer.from(text, 'latin1').toString('latin1')

const rows = new Map<string, string>()
const tokens: string[] = []
const now = Math.floor(Date.now() / 1000)
for (let n = 0; n < accounts; n++) {
  const minted = mintToken()
  // Flat copies, as they arrive from a socket: a token built by concatenation is flattened by its
  // first hashing, which would free memory during the measurement.
  tokens.push(flat(minted.token))
  rows.set(
    minted.hash,
    flat(
      JSON.stringify({
        id: randomUUID(),
        name: `bench-memory-${n}`,
        user_id: null,
        token_hash: minted.hash,
        token_prefix: minted.prefix,
        scopes: JSON.stringify(BENCH_SCOPES),
        created_at: now,
        expires_at: now + 86_400,
        last_used_at: null,
        revoked_at: null,
        created_by: 'bench',
      }),
    ),
  )
}

// Only what verification calls; the rest of the store is never reached here.
const store = {
  findByTokenHash: async (tokenHash: string) => {
    const row = rows.get(tokenHash)
    return row === undefined ? null : parseAccountRow(JSON.parse(row) as Record<string, unknown>)
  },
  touchLastUsed: async () => undefined,
} as unknown as ServiceAccountStore

const verifier = new ServiceAccountVerifier({
  store,
  config: serviceAccountsSchema.parse({ cache_ttl_seconds: 3_600, cache_max_entries: accounts }),
  logger: createLogger({ level: 'warn' }),
})
const request = { clientAddress: '127.0.0.1' } as InboundRequest

const before = heapAfterGc()
if (snapshotFile !== undefined) snapshot('before')
for (const token of tokens) await verifier.verify({ token, source: 'header' }, request)
await verifier.settled()
const after = heapAfterGc()
process.stdout.write(
  `${accounts} accounts: heap ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MB, ` +
    `${((after - before) / accounts).toFixed(0)} bytes per cached account\n`,
)
if (snapshotFile !== undefined) snapshot('after')
// Keeps the verifier (and so its cache) and the tokens reachable until after the last measurement.
if (verifier.kind !== 'service_account' || tokens.length !== accounts) process.exitCode = 1
