import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import { mediaKind, type BodyKind } from './body-kind.js'
import type { FormEdit } from './form-edits.js'
import { jsonNestingExceeds, jsonTooDeep } from './json-depth.js'
import { checkMultipartType, parseForm, type ParsedForm } from './multipart-parser.js'
import { rewriteForm, type FormRewriter } from './multipart-rewriter.js'
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

/**
 * The one owner of a request's body, for every step that looks into it (identity pins, the
 * surfaces, the handler checks) and for the upstream layer that forwards it. Nothing is read
 * until a step asks: a body nobody looks into reaches the upstream as the client's stream,
 * untouched. Asked for, the client's stream is read once (`maxBytes` at most); the bytes, the
 * JSON value parsed from them (once, `maxDepth` deep at most) or the multipart form parsed from
 * them are the current body, and each step's edit applies to what the steps before it left. A
 * body whose JSON value was edited is serialized once, when it is forwarded or when a step asks
 * for its bytes; the edits of a multipart form are recorded and applied together in one
 * streaming rewrite, when it is forwarded.
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
  /** The edits of a multipart form, in the order the steps made them: the bytes are stale too. */
  #formEdits: FormEdit[] = []
  /** The multipart form parsed from the current bytes, when a step read it whole. */
  #form: ParsedForm | undefined
  readonly #rewrite: FormRewriter

  /** `rewrite`: how a multipart form's edits are applied (given only to observe it). */
  constructor(
    client: Readable,
    headers: IncomingHttpHeaders,
    limits: BodyLimits,
    rewrite: FormRewriter = rewriteForm,
  ) {
    this.#client = client
    this.#headers = headers
    this.#limits = limits
    this.#rewrite = rewrite
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
    const content = this.#formEdits.length > 0 ? this.#rewritten() : this.#content
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
    this.#formEdits = []
    this.#form = undefined
  }

  /**
   * Records an edit of the current multipart form, applied with the others when the body is
   * forwarded (or its bytes asked for). 400 at once when the Content-Type names no boundary.
   */
  editForm(edit: FormEdit): void {
    if (this.#formEdits.length === 0) checkMultipartType(this.contentType ?? '')
    this.#formEdits.push(edit)
  }

  /**
   * The current multipart form, whole: the body read once (`maxBytes` at most), parsed once
   * (text fields `maxBytes` long at most, `MAX_MULTIPART_PARTS` parts); what is forwarded is then
   * written from it. A step reads the form before it edits it.
   */
  async form(): Promise<ParsedForm> {
    if (this.#formEdits.length > 0) throw new Error('a form is read before it is edited')
    const contentType = this.contentType ?? ''
    checkMultipartType(contentType)
    const bytes = await this.bytes()
    this.#form ??= await parseForm(bytes, { contentType, maxFieldBytes: this.#limits.maxBytes })
    return this.#form
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
    this.#formEdits = []
    this.#form = undefined
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
    if (this.#edit !== undefined) return this.#serialize(this.#edit)
    return this.#formEdits.length > 0 ? this.#rewritten() : this.#content
  }

  /** The one rewrite that applies every recorded form edit; its output becomes the body. */
  #rewritten(): Readable {
    const maxFieldBytes = this.#limits.maxBytes
    const content = this.#content
    const contentType = this.contentType ?? ''
    const output = this.#rewrite(
      this.#form !== undefined
        ? { form: this.#form, maxFieldBytes }
        : {
            stream: Buffer.isBuffer(content) ? Readable.from([content]) : (content ?? this.#client),
            contentType,
            maxFieldBytes,
          },
      this.#formEdits,
    )
    this.#formEdits = []
    this.#form = undefined
    this.#content = output.body
    this.#contentType = output.contentType
    this.#reading = undefined
    this.#json = undefined
    return output.body
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
