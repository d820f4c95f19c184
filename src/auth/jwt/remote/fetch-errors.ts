import { CONNECTION_FAILURES } from '../../../connection-failure.js'

/**
 * Why a fetch of the remote key set (or its discovery document) failed: a bounded metric label.
 * A connection failure has the words the upstream's failures have (`dns`, `refused`, …).
 */
export const FETCH_FAILURES = [
  ...CONNECTION_FAILURES,
  'blocked',
  'http_status',
  'too_large',
  'invalid',
] as const

export type FetchFailure = (typeof FETCH_FAILURES)[number]

/** What a completed fetch did to the key set. */
export type FetchSuccess = 'updated' | 'unchanged' | 'not_modified'

export type FetchOutcome = FetchSuccess | FetchFailure

/** A failed fetch; the message names the endpoint and the cause, never a key. */
export class KeyFetchError extends Error {
  override readonly name = 'KeyFetchError'
  readonly outcome: FetchFailure

  constructor(outcome: FetchFailure, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.outcome = outcome
  }
}
