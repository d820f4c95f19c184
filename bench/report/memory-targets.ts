import type { MemoryResult } from '../lib/types.js'
import { target, type TargetResult } from './targets.js'

const mb = (value: number) => `${value.toFixed(1)} MB`

/**
 * Issue 14's memory targets: 8 for PostgreSQL (RSS after start, with 100,000 cached service
 * accounts, heap per cached account after GC) and 9 for the embedded store (peak of a first
 * start with its initialising child, RSS after a first start and after a restart).
 */
export function memoryTargets(memory: readonly MemoryResult[]): TargetResult[] {
  const pg = memory.find((result) => result.store === 'postgres')
  const embedded = memory.find((result) => result.store === 'embedded')
  const cached = pg === undefined || pg.accounts < 100_000 ? null : pg
  return [
    target(
      '14 #8',
      'memory-start-postgres',
      'RSS after start (PostgreSQL store)',
      '≤ 80 MB',
      pg?.rssBeforeMb ?? null,
      (v) => v <= 80,
      mb,
    ),
    target(
      '14 #8',
      'memory-postgres',
      `RSS with ${cached?.accounts.toLocaleString('en-US') ?? '100,000'} cached service accounts (PostgreSQL store)`,
      '≤ 150 MB',
      cached?.rssAfterMb ?? null,
      (v) => v <= 150,
      mb,
    ),
    target(
      '14 #8',
      'memory-per-account',
      'V8 heap per cached service account, after GC (PostgreSQL store)',
      '≤ 400 bytes',
      cached?.heapPerAccountBytes ?? null,
      (v) => v <= 400,
      (v) => `${Math.round(v)} bytes`,
    ),
    target(
      '14 #9',
      'embedded-first-start-peak',
      'peak RSS of a first start, initialising the data directory (embedded store, with its child)',
      '≤ 256 MB',
      embedded?.firstStart?.peakMb ?? null,
      (v) => v <= 256,
      mb,
    ),
    target(
      '14 #9',
      'embedded-first-start-rss',
      'RSS after a first start (embedded store)',
      '≤ 200 MB',
      embedded?.firstStart?.rssMb ?? null,
      (v) => v <= 200,
      mb,
    ),
    target(
      '14 #9',
      'embedded-restart-rss',
      `RSS after a restart (embedded store, ${embedded?.accounts.toLocaleString('en-US') ?? 'its'} accounts stored)`,
      '≤ 200 MB',
      embedded?.rssBeforeMb ?? null,
      (v) => v <= 200,
      mb,
    ),
  ]
}
