/** Reads Prometheus text exposition for assertions. */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line)
    if (match === null) continue
    const labels: Record<string, string> = {}
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] as string] = pair[2] as string
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) })
  }
  return samples
}

/** The value of the one sample with this name whose labels include `labels`; undefined if none. */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = parseMetrics(text).filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
  if (found.length > 1)
    throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value
}

/**
 * The gateway's metrics once `portcullis_http_requests_total` adds up to `requests`: a request is
 * counted just after its last byte is sent, so a client can be a moment ahead of the registry.
 */
export async function settledMetrics(
  gateway: { metrics(): Promise<string> },
  requests: number,
  timeoutMs = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const text = await gateway.metrics()
    const total = parseMetrics(text)
      .filter((sample) => sample.name === 'portcullis_http_requests_total')
      .reduce((sum, sample) => sum + sample.value, 0)
    if (total === requests) return text
    if (Date.now() > deadline) {
      throw new Error(
        `portcullis_http_requests_total is ${total}, not ${requests}, after ${timeoutMs} ms`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
