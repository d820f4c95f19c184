import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import { mediaKind, type BodyKind } from './body-kind.js'
import { jsonNestingExceeds, jsonTooDeep } from './json-depth.js'
import { hasBody, readBoundedBody } from './request-body.js'
import { parseJson } from './strict-json.js'

/** `server.max_body_bytes` and `server.max_json_depth`. */
export interface BodyLimits {
  readonly maxBytes: number
  readonly maxDepth: number
}

/** A body as it is inspected: parsed, or `invalid` when it is not strict UTF-8 JSON. */
export type RequestJson = { readonly value: unknown } | { readonly invalid: true }

/** The body that replaces the client's on the way upstream. */
export interface ForwardedBody {
  /** A Buffer goes with its length; a stream (a multipart rewrite) goes chunked. */
  readonly content: Readable | Buffer
  /** A new Content-Type (a rewritten multipart boundary); the client's when undefined. */
  readonly contentType: string | undefined
}

/** A streaming rewrite of a body: its output and the output's Content-Type. */
export interface StreamRewrite {
  readonly body: Readable
  readonly contentType: string
}

/**
 * The one owner of a request's body, for every step that looks into it (identity pins, the
 * surfaces, the handler checks) and for the upstream layer that forwards it. Nothing is read
 * until a step asks: a body nobody looks into reaches the upstream as the client's stream,
 * untouched. Asked for, the client's stream is read once (`maxBytes` at most); the bytes, the
 * JSON value parsed from them (once, `maxDepth` deep at most) or a streaming rewrite are the
 * current body, and each step's edit applies to what the steps before it left. A body whose JSON
 * value was edited is serialized once, when it is forwarded or when a step asks for its bytes.
 */
export class ClientBody {
  readonly #client: Readable
  readonly #headers: IncomingHttpHeaders
  readonly #limits: BodyLimits
  /** undefined while the client's stream is unread. */
  #content: Buffer | Readable | undefined
  #contentType: string | undefined
  #reading: Promise<Buffer> | undefined
  #json: RequestJson | undefined
  /** A JSON value set by a step: the bytes are stale until it is serialized. */
  #edit: { readonly value: unknown } | undefined

  constructor(client: Readable, headers: IncomingHttpHeaders, limits: BodyLimits) {
    this.#client = client
    this.#headers = headers
    this.#limits = limits
  }

  get limits(): BodyLimits {
    return this.#limits
  }

  /** The client's stream, for the upstream layer when nothing replaced it. */
  get clientStream(): Readable {
    return this.#client
  }

  /** The Content-Type of the current body. */
  get contentType(): string | undefined {
    return this.#contentType ?? this.#headers['content-type']
  }

  /** How the upstream will read the current body ('none' for an absent or empty one). */
  get kind(): BodyKind {
    const content = this.#content
    const present =
      this.#edit !== undefined ||
      (content === undefined
        ? hasBody(this.#headers)
        : !Buffer.isBuffer(content) || content.length > 0)
    return present ? mediaKind(this.contentType) : 'none'
  }

  /** The current body, whole: read from the client (or the rewrite) the first time. */
  async bytes(): Promise<Buffer> {
    if (this.#edit !== undefined) return this.#serialize(this.#edit)
    const content = this.#content
    if (Buffer.isBuffer(content)) return content
    this.#reading ??= this.#read(content)
    return this.#reading
  }

  /** Replaces the current body by bytes (an edit that keeps every other byte as it was). */
  setBytes(bytes: Buffer, contentType = this.#contentType): void {
    this.#content = bytes
    this.#contentType = contentType
    this.#reading = undefined
    this.#json = undefined
    this.#edit = undefined
  }

  /**
   * Streams the current body through `rewrite`, whose output becomes the body; the client's
   * stream when nothing read it yet.
   */
  pipeThrough(rewrite: (input: Readable, contentType: string) => StreamRewrite): StreamRewrite {
    const content = this.#current()
    const input = Buffer.isBuffer(content) ? Readable.from([content]) : (content ?? this.#client)
    const output = rewrite(input, this.contentType ?? '')
    this.#content = output.body
    this.#contentType = output.contentType
    this.#reading = undefined
    this.#json = undefined
    return output
  }

  /**
   * The current body as JSON, parsed once; undefined when there is none (empty included). 400
   * when it nests deeper than `maxDepth`.
   */
  async json(): Promise<RequestJson | undefined> {
    if (this.#json !== undefined) return this.#json
    if (this.#content === undefined && !hasBody(this.#headers)) return undefined
    const raw = await this.bytes()
    if (raw.length === 0) return undefined
    if (jsonNestingExceeds(raw, this.#limits.maxDepth)) throw jsonTooDeep()
    this.#json = parseJson(raw) ?? { invalid: true }
    return this.#json
  }

  /** Replaces the JSON value (or records that it was changed in place): serialized when needed. */
  setJson(value: unknown): void {
    this.#edit = { value }
    this.#json = this.#edit
  }

  /**
   * What the upstream receives instead of the client's stream; undefined when no step read the
   * body. A body that was read but not changed goes as the same bytes.
   */
  forwarded(): ForwardedBody | undefined {
    const content = this.#current()
    if (content === undefined) return undefined
    return { content, contentType: this.#contentType }
  }

  #current(): Buffer | Readable | undefined {
    return this.#edit === undefined ? this.#content : this.#serialize(this.#edit)
  }

  /** The one serialization of an edited JSON value; its parse stays valid for the bytes. */
  #serialize(edit: { readonly value: unknown }): Buffer {
    const bytes = Buffer.from(JSON.stringify(edit.value))
    this.#content = bytes
    this.#edit = undefined
    return bytes
  }

  async #read(content: Readable | undefined): Promise<Buffer> {
    const fromClient = content === undefined
    const bytes = await readBoundedBody(
      content ?? this.#client,
      this.#limits.maxBytes,
      fromClient ? this.#headers['content-length'] : undefined,
    )
    // A later edit may have replaced the body meanwhile; only the body read is replaced.
    if (this.#content === content) this.#content = bytes
    return bytes
  }
}
