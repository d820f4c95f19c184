/** One schema step. Statements run one by one, so both drivers accept them. */
export interface Migration {
  /** Ordered, zero-padded: `001`, `002`, … Never renumber an applied migration. */
  readonly version: string
  readonly name: string
  readonly statements: readonly string[]
}
