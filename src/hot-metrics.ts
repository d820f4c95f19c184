import type { Metric, Registry } from 'prom-client'

/**
 * The request path's counters and histograms. prom-client validates and hashes the label object
 * on every `inc` and `observe`, a bound child included: about 1 µs for a counter and a histogram
 * together, on every request. These keep one plain record per label combination instead, found
 * by a string key, and hand prom-client's registry the same samples at scrape time (a metric of
 * the registry is any object with a name and `get()`), so the exposition is unchanged.
 */
interface MetricSample {
  readonly labels: Record<string, string | number>
  readonly sharedLabels?: Record<string, string>
  readonly value: number
  readonly metricName?: string
}

interface MetricData {
  readonly name: string
  readonly help: string
  readonly type: 'counter' | 'histogram'
  readonly values: MetricSample[]
  readonly aggregator: 'sum'
}

interface HotMetricOptions<L extends string> {
  readonly name: string
  readonly help: string
  readonly labelNames: readonly L[]
  readonly registers: readonly Registry[]
}

type Level<S> = Map<string, Level<S> | S>

abstract class HotMetric<L extends string, S> {
  readonly name: string
  readonly help: string
  readonly aggregator = 'sum' as const
  readonly #labelNames: readonly L[]
  // Nested by label value: a lookup hashes the label strings the caller already has (the route
  // labels are the catalogue's own strings) instead of a key concatenated per call.
  readonly #series = new Map<string, Level<S>>()
  readonly #all: S[] = []

  constructor(options: HotMetricOptions<L>) {
    this.name = options.name
    this.help = options.help
    this.#labelNames = options.labelNames
    for (const registry of options.registers) {
      registry.registerMetric(this as unknown as Metric)
    }
  }

  abstract readonly type: MetricData['type']

  /** What prom-client's registry reads at scrape time. */
  get(): Promise<MetricData> {
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values: this.samples(),
      aggregator: this.aggregator,
    })
  }

  /** The exposition's samples of every series. */
  protected abstract samples(): MetricSample[]

  /**
   * The series of one label combination (values in `labelNames` order, exactly as many), made on
   * first use.
   */
  protected series(a: string, b?: string, c?: string): S {
    let level: Level<S> = this.#series
    if (b !== undefined) level = this.#child(level, a)
    if (c !== undefined) level = this.#child(level, b as string)
    const last = c ?? b ?? a
    let series = level.get(last) as S | undefined
    if (series === undefined) {
      const values = [a, b, c]
      const labels: Record<string, string> = {}
      this.#labelNames.forEach((name, index) => {
        labels[name] = values[index] ?? ''
      })
      series = this.create(labels)
      level.set(last, series)
      this.#all.push(series)
    }
    return series
  }

  #child(level: Level<S>, value: string): Level<S> {
    let next = level.get(value) as Level<S> | undefined
    if (next === undefined) level.set(value, (next = new Map()))
    return next
  }

  protected abstract create(labels: Record<string, string>): S

  protected all(): readonly S[] {
    return this.#all
  }

  /** Forgets every series (prom-client's `reset`). */
  reset(): void {
    this.#series.clear()
    this.#all.length = 0
  }
}

interface CounterSeries {
  readonly labels: Record<string, string>
  value: number
}

export interface BoundCounter {
  inc(): void
}

/** A counter of one to three labels. */
export class HotCounter<L extends string> extends HotMetric<L, CounterSeries> {
  readonly type = 'counter' as const

  inc(a: string, b?: string, c?: string): void {
    this.series(a, b, c).value++
  }

  /**
   * One label combination's series, made now (so it is exposed at zero before its first
   * increment), with an `inc` that finds it without a lookup.
   */
  bind(a: string, b?: string, c?: string): BoundCounter {
    const series = this.series(a, b, c)
    return {
      inc: () => {
        series.value++
      },
    }
  }

  protected create(labels: Record<string, string>): CounterSeries {
    return { labels, value: 0 }
  }

  protected samples(): MetricSample[] {
    return this.all().map((series) => ({ labels: series.labels, value: series.value }))
  }
}

interface HistogramSeries {
  readonly labels: Record<string, string>
  /** Observations per bucket (not cumulative); the last is above every bound. */
  readonly counts: Float64Array
  sum: number
  count: number
}

/** A histogram of one to three labels, with fixed buckets. */
export class HotHistogram<L extends string> extends HotMetric<L, HistogramSeries> {
  readonly type = 'histogram' as const
  readonly #bounds: readonly number[]

  constructor(options: HotMetricOptions<L> & { readonly buckets: readonly number[] }) {
    super(options)
    this.#bounds = [...options.buckets].sort((x, y) => x - y)
  }

  observe(seconds: number, a: string, b?: string, c?: string): void {
    const series = this.series(a, b, c)
    const bounds = this.#bounds
    let index = 0
    while (index < bounds.length && seconds > (bounds[index] as number)) index++
    ;(series.counts[index] as number)++
    series.sum += seconds
    series.count++
  }

  protected create(labels: Record<string, string>): HistogramSeries {
    return { labels, counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 }
  }

  protected samples(): MetricSample[] {
    const values: MetricSample[] = []
    const bucket = `${this.name}_bucket`
    for (const series of this.all()) {
      let cumulative = 0
      this.#bounds.forEach((bound, index) => {
        cumulative += series.counts[index] as number
        values.push({
          labels: { le: bound },
          sharedLabels: series.labels,
          value: cumulative,
          metricName: bucket,
        })
      })
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: series.labels,
          value: series.count,
          metricName: bucket,
        },
        {
          labels: {},
          sharedLabels: series.labels,
          value: series.sum,
          metricName: `${this.name}_sum`,
        },
        {
          labels: {},
          sharedLabels: series.labels,
          value: series.count,
          metricName: `${this.name}_count`,
        },
      )
    }
    return values
  }
}
