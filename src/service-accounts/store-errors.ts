/** An active account already has this name (the partial unique index said so). */
export class NameConflictError extends Error {
  readonly accountName: string

  constructor(accountName: string, options: { cause?: unknown } = {}) {
    super(`an active service account named '${accountName}' already exists`, options)
    this.name = 'NameConflictError'
    this.accountName = accountName
  }
}

/** The store cannot be reached or did not answer in time; callers answer 503, never pass. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}
