import type { DestinationStream } from 'pino'

/** A pino destination that keeps every line, so tests can assert on logs (and on what they lack). */
export class LogCapture implements DestinationStream {
  readonly lines: string[] = []

  /** A write may carry several lines (the access log hands over one event-loop turn's at once). */
  write(chunk: string): void {
    let start = 0
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      this.lines.push(chunk.slice(start, end + 1))
      start = end + 1
    }
    if (start < chunk.length) this.lines.push(chunk.slice(start))
  }

  get text(): string {
    return this.lines.join('')
  }

  records(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  }
}
