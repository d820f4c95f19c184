import pg from 'pg'
import type { Logger } from '../logger.js'
import { listenStatement } from './sql-client.js'

export interface PgListenerOptions {
  readonly connectionString: string
  readonly connectTimeoutMs: number
  readonly queryTimeoutMs: number
  readonly logger: Logger
  readonly initialBackoffMs?: number
  readonly maxBackoffMs?: number
  /** A dead peer that never closes the socket is noticed by this periodic `SELECT 1`. */
  readonly heartbeatMs?: number
}

interface Channel {
  readonly onPayload: (payload: string) => void
  readonly onGap: (() => void) | undefined
}

/**
 * One dedicated connection for LISTEN (a pooled one would be handed to other queries). When it
 * drops, for example because the database restarted, it reconnects with capped exponential
 * backoff, listens again and reports the gap, since notifications sent meanwhile are lost.
 */
export class PgListener {
  readonly #options: PgListenerOptions
  readonly #channels = new Map<string, Channel>()
  #client: pg.Client | null = null
  #connecting: Promise<void> | null = null
  #retryTimer: NodeJS.Timeout | undefined
  #heartbeatTimer: NodeJS.Timeout | undefined
  #failures = 0
  #interrupted = false
  #closed = false

  constructor(options: PgListenerOptions) {
    this.#options = options
  }

  async listen(
    channel: string,
    onPayload: (payload: string) => void,
    onGap?: () => void,
  ): Promise<void> {
    this.#channels.set(channel, { onPayload, onGap })
    if (this.#client === null && this.#connecting === null) return this.#connect()
    // An attempt in flight may have listed its channels before this one was added.
    await this.#connecting
    const client = this.#client
    if (client === null) return
    await client.query(listenStatement(channel)).catch((error: unknown) => {
      this.#lost(client, asError(error))
    })
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retryTimer)
    clearInterval(this.#heartbeatTimer)
    const client = this.#client
    this.#client = null
    await client?.end().catch(() => undefined)
  }

  #connect(): Promise<void> {
    const attempt = this.#attempt().finally(() => {
      this.#connecting = null
    })
    this.#connecting = attempt
    return attempt
  }

  async #attempt(): Promise<void> {
    const { connectionString, connectTimeoutMs, queryTimeoutMs } = this.#options
    const client = new pg.Client({
      connectionString,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: queryTimeoutMs,
      keepAlive: true,
    })
    client.on('error', (error) => this.#lost(client, error))
    client.on('end', () => this.#lost(client))
    client.on('notification', (message) => {
      this.#channels.get(message.channel)?.onPayload(message.payload ?? '')
    })
    try {
      await client.connect()
      for (const channel of this.#channels.keys()) await client.query(listenStatement(channel))
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'revocation listener cannot connect; retrying')
      await client.end().catch(() => undefined)
      this.#interrupted = true
      this.#scheduleReconnect()
      return
    }
    if (this.#closed) {
      await client.end().catch(() => undefined)
      return
    }
    this.#client = client
    this.#failures = 0
    this.#startHeartbeat(client)
    if (this.#interrupted) {
      this.#interrupted = false
      for (const { onGap } of this.#channels.values()) onGap?.()
    }
  }

  #lost(client: pg.Client, error?: Error): void {
    if (client !== this.#client) return
    this.#client = null
    clearInterval(this.#heartbeatTimer)
    this.#interrupted = true
    if (error !== undefined) {
      this.#options.logger.warn({ err: error }, 'revocation listener connection lost')
    }
    client.end().catch(() => undefined)
    this.#scheduleReconnect()
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retryTimer !== undefined) return
    const initial = this.#options.initialBackoffMs ?? 100
    const max = this.#options.maxBackoffMs ?? 5_000
    const base = Math.min(max, initial * 2 ** this.#failures)
    this.#failures += 1
    // Jitter keeps replicas that lost the database together from reconnecting in lockstep.
    const delay = base * (0.8 + Math.random() * 0.4)
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      if (!this.#closed && this.#client === null && this.#connecting === null) void this.#connect()
    }, delay)
    this.#retryTimer.unref()
  }

  #startHeartbeat(client: pg.Client): void {
    const every = this.#options.heartbeatMs ?? 15_000
    this.#heartbeatTimer = setInterval(() => {
      client.query('SELECT 1').catch((error: unknown) => this.#lost(client, asError(error)))
    }, every)
    this.#heartbeatTimer.unref()
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}
