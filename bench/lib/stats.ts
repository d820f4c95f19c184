/** Pure statistics helpers; every function ignores NaN inputs. */

function finite(values: readonly number[]): number[] {
  return values.filter((value) => Number.isFinite(value))
}

/** The median; NaN for an empty list. */
export function median(values: readonly number[]): number {
  const sorted = finite(values).sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const middle = Math.floor(sorted.length / 2)
  const upper = sorted[middle] ?? Number.NaN
  if (sorted.length % 2 === 1) return upper
  return ((sorted[middle - 1] ?? upper) + upper) / 2
}

/**
 * The `p`-th percentile (0–100) by nearest rank on sorted values, as wrk and HdrHistogram report
 * it: the smallest value with at least p % of the values at or below it. NaN for an empty list.
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = finite(values).sort((a, b) => a - b)
  return percentileOfSorted(sorted, p)
}

export function percentileOfSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const clamped = Math.min(100, Math.max(0, p))
  const rank = Math.max(1, Math.ceil((clamped / 100) * sorted.length))
  return sorted[rank - 1] ?? Number.NaN
}

export function mean(values: readonly number[]): number {
  const usable = finite(values)
  if (usable.length === 0) return Number.NaN
  return usable.reduce((sum, value) => sum + value, 0) / usable.length
}

/** a ÷ b, or null when either is unknown or b is zero. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined) return null
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null
  return a / b
}

/** Sums numbers in a record, e.g. counts per status. */
export function sumValues(record: Readonly<Record<string, number>>): number {
  return Object.values(record).reduce((sum, value) => sum + value, 0)
}

/** How many answers had a status other than `expected`, from counts per status. */
export function otherThan(statuses: Readonly<Record<string, number>>, expected: number): number {
  return Object.entries(statuses)
    .filter(([status]) => Number(status) !== expected)
    .reduce((sum, [, count]) => sum + count, 0)
}

/** Adds counts per key (answers per status) into `total`. */
export function addCounts(
  total: Record<string, number>,
  counts: Readonly<Record<string, number>>,
): Record<string, number> {
  for (const [key, count] of Object.entries(counts)) total[key] = (total[key] ?? 0) + count
  return total
}
