/** A request field whose value the gateway decides instead of the client. */
export interface FieldPin {
  readonly name: string
  readonly value: string
  /** true: set even when the client sent none; false: only replace client copies. */
  readonly always: boolean
  /** Other values the caller may choose instead (every client copy naming the same one). */
  readonly accepted?: readonly string[]
}

/** Client values of inspected fields (`session_id` for gates, `user_id` for learnings), by name. */
export type ObservedFields = ReadonlyMap<string, readonly unknown[]>

export function observe(into: Map<string, unknown[]>, name: string, value: unknown): void {
  const values = into.get(name)
  if (values === undefined) into.set(name, [value])
  else values.push(value)
}

export function findPin(pins: readonly FieldPin[], name: string): FieldPin | undefined {
  for (const pin of pins) if (pin.name === name) return pin
  return undefined
}
