import { z } from 'zod'

export const auditSchema = z
  .strictObject({
    retention_days: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .default(365)
      .describe(
        'Audit events older than this many days are removed, at start-up and then daily, and the removal is recorded as a prune event that `portcullis audit verify` checks the rest of the chain against. At least 1; there is no value that keeps events forever (36500 keeps a century).',
      ),
  })
  .prefault({})
