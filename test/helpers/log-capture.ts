import type { DestinationStream } from 'pino'

/** A pino destination that keeps every line, so tests can assert on logs (and on what they lack). */
export class LogCapture implements DestinationStream {
  readonly lines: string[] = []

  write(line: string): void {
    this.lines.push(line)
  }

  get text(): string {
    return this.lines.join('')
  }

  records(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  }
}
