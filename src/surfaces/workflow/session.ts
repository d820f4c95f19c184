import type { RawData, WebSocket } from 'ws'
import type { Credential } from '../../auth/credential.js'
import type { InboundRequest } from '../../inbound/inbound-request.js'
import { ANONYMOUS, type Principal } from '../../principal.js'
import { jsonNestingExceeds } from '../../inbound/json-depth.js'
import { CREDENTIAL_ENDED_CLOSE_CODE, type ConnectionWatch } from '../../http/connection-watch.js'
import type { Logger } from '../../logger.js'
import { isJsonObject, parseJson } from '../common/json.js'
import type { WorkflowAuthenticator } from './authenticator.js'
import {
  authRequiredFrame,
  connectedFrame,
  PONG,
  TOKEN_REQUIRED,
  toBuffer,
  unknownActionFrame,
  type Frame,
} from './frames.js'
import { gateWorkflowAction, isRelayedAction, type GateSettings } from './gates.js'
import { UpstreamLink } from './upstream-link.js'

export interface WorkflowSessionDeps {
  readonly authenticator: WorkflowAuthenticator
  readonly gates: GateSettings
  /** A JWT source or a security key is configured. */
  readonly requiresAuth: boolean
  readonly watch: ConnectionWatch
  /** Opens the upstream socket with this principal's identity headers. */
  readonly openUpstream: (principal: Principal) => Promise<WebSocket>
  readonly maxMessageBytes: number
  /** Deeper frames are refused (1003): a pinned frame is serialized again, and that recurses. */
  readonly maxJsonDepth: number
  /** 0: never time out. */
  readonly authTimeoutMs: number
  readonly logger: Logger
}

// Close codes (RFC 6455 §7.4.1); AgentOS ends the connection on a frame it cannot parse.
const UNSUPPORTED_DATA = 1003
const MESSAGE_TOO_BIG = 1009
const INTERNAL_ERROR = 1011
// Frames queue behind a slow verification, upstream handshake or upstream: reading from the
// client pauses past the first bound; the second is a backstop.
const PAUSE_AT_PENDING = 64
const MAX_PENDING_MESSAGES = 256

/**
 * One client connection to the workflow WebSocket: in-band authentication answered here, the
 * three workflow actions checked, pinned and relayed to an upstream socket opened on first use
 * with the principal's identity. Frames are handled strictly in arrival order.
 */
export class WorkflowSession {
  readonly #client: WebSocket
  readonly #inbound: InboundRequest
  readonly #deps: WorkflowSessionDeps
  readonly #upstream: UpstreamLink
  #principal: Principal | undefined
  #stopWatch: () => void = () => undefined
  #authTimer: NodeJS.Timeout | undefined
  #chain: Promise<void> = Promise.resolve()
  #pending = 0

  constructor(client: WebSocket, inbound: InboundRequest, deps: WorkflowSessionDeps) {
    this.#client = client
    this.#inbound = inbound
    this.#deps = deps
    this.#upstream = new UpstreamLink(client, deps.openUpstream, deps.logger)
  }

  /** Greets, then authenticates a credential the upgrade carried (header, cookie, subprotocol). */
  start(upgradeCredential: Credential | undefined): void {
    const client = this.#client
    if (!this.#deps.requiresAuth) this.#principal = ANONYMOUS
    client.on('message', (data: RawData, isBinary: boolean) => this.#enqueue(data, isBinary))
    client.once('close', (code: number, reason: Buffer) => this.#closed(code, reason))
    client.on('error', () => client.terminate())
    this.#send(connectedFrame(this.#deps.requiresAuth))
    const timeout = this.#deps.authTimeoutMs
    if (this.#principal === undefined && timeout > 0) {
      this.#authTimer = setTimeout(() => {
        if (this.#principal === undefined)
          client.close(CREDENTIAL_ENDED_CLOSE_CODE, 'authentication timeout')
      }, timeout)
      this.#authTimer.unref()
    }
    if (upgradeCredential !== undefined) this.#serially(() => this.#authenticate(upgradeCredential))
  }

  #enqueue(data: RawData, isBinary: boolean): void {
    if (this.#pending >= MAX_PENDING_MESSAGES) {
      this.#client.close(CREDENTIAL_ENDED_CLOSE_CODE, 'too many pending messages')
      return
    }
    this.#serially(() => this.#handle(toBuffer(data), isBinary))
  }

  #serially(work: () => Promise<void>): void {
    const client = this.#client
    if (++this.#pending === PAUSE_AT_PENDING) client.pause()
    this.#chain = this.#chain
      .then(() => (client.readyState === client.OPEN ? work() : undefined))
      .catch((error: unknown) => {
        this.#deps.logger.error({ err: error }, 'workflow WebSocket message failed')
        client.close(INTERNAL_ERROR, 'internal error')
      })
      .finally(() => {
        if (--this.#pending === PAUSE_AT_PENDING / 2 && client.isPaused) client.resume()
      })
  }

  async #handle(data: Buffer, isBinary: boolean): Promise<void> {
    if (data.length > this.#deps.maxMessageBytes) {
      this.#client.close(MESSAGE_TOO_BIG, 'message too big')
      return
    }
    if (!isBinary && jsonNestingExceeds(data, this.#deps.maxJsonDepth)) {
      this.#client.close(UNSUPPORTED_DATA, 'JSON nested too deeply')
      return
    }
    const parsed = isBinary ? undefined : parseJson(data)
    if (parsed === undefined || !isJsonObject(parsed.value)) {
      this.#client.close(UNSUPPORTED_DATA, 'expected a JSON object')
      return
    }
    const message = parsed.value
    const action = message['action']
    if (action === 'authenticate') {
      const token = message['token']
      if (typeof token !== 'string' || token === '') return this.#send(TOKEN_REQUIRED)
      return this.#authenticate({ token, source: 'message' })
    }
    const principal = this.#principal
    if (principal === undefined)
      return this.#send(authRequiredFrame(this.#deps.gates.jwtConfigured))
    if (action === 'ping') return this.#send(PONG)
    if (!isRelayedAction(action)) return this.#send(unknownActionFrame(action))
    const outcome = gateWorkflowAction(action, message, principal, this.#deps.gates)
    if (outcome.kind === 'refuse') return this.#send(outcome.frame)
    const text = outcome.changed ? JSON.stringify(outcome.message) : data.toString('utf8')
    await this.#upstream.send(text, principal)
  }

  async #authenticate(credential: Credential): Promise<void> {
    const outcome = await this.#deps.authenticator.authenticate(credential, this.#inbound)
    if (!outcome.ok) return this.#send(outcome.frame)
    const principal = outcome.principal
    this.#stopWatch()
    this.#stopWatch = this.#deps.watch.watch(this.#client, principal)
    // The upstream connection carries the identity it was opened with.
    this.#upstream.keepOnlyFor(principal)
    this.#principal = principal
    clearTimeout(this.#authTimer)
    for (const frame of outcome.frames) this.#send(frame)
  }

  #send(frame: Frame): void {
    if (this.#client.readyState === this.#client.OPEN) this.#client.send(JSON.stringify(frame))
  }

  #closed(code: number, reason: Buffer): void {
    clearTimeout(this.#authTimer)
    this.#stopWatch()
    this.#upstream.close(code, reason)
  }
}
