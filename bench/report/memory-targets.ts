import type { MemoryResult } from '../lib/types.js'
import { target, type TargetResult } from './targets.js'

/** The cached accounts target 9 is read at. */
export const CACHED_ACCOUNTS = 100_000

/**
 * Target 9, on the PostgreSQL store: RSS with 100,000 cached service accounts, and the V8 heap
 * per cached account after GC. A run with fewer accounts measures neither.
 */
export function memoryTargets(memory: readonly MemoryResult[]): TargetResult[] {
  const pg = memory.find((result) => result.store === 'postgres')
  const cached = pg === undefined || pg.accounts < CACHED_ACCOUNTS ? null : pg
  return [
    target(
      '23 #9',
      'memory-postgres',
      '100,000 cached accounts: RSS ≤ 150 MB',
      '≤ 150 MB',
      cached?.rssAfterMb ?? null,
      (v) => v <= 150,
      (v) => `${v.toFixed(1)} MB`,
    ),
    target(
      '23 #9',
      'memory-per-account',
      '100,000 cached accounts: heap ≤ 400 B per account',
      '≤ 400 B',
      cached?.heapPerAccountBytes ?? null,
      (v) => v <= 400,
      (v) => `${Math.round(v)} B`,
    ),
  ]
}
