/** Levenshtein distance, small strings only. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      )
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/**
 * The candidate a mistyped word was probably meant to be: the closest one (case-insensitively)
 * within `max(2, length / 3)` edits, the first of equals; undefined when none is that close.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3))
  let best: { candidate: string; distance: number } | undefined
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase())
    if (d <= limit && (best === undefined || d < best.distance)) best = { candidate, distance: d }
  }
  return best?.candidate
}
