import type { Readable } from 'node:stream'
import type { PartHead } from './multipart-parts.js'

/** A field whose value a step decides instead of the client. */
export interface FieldSetting {
  readonly name: string
  readonly value: string
  /** true: set even when the client sent none; false: only replace client copies. */
  readonly always: boolean
}

/**
 * Text fields a step decides on as they stream past: each value of a named field is written as
 * `screen` resolves it, and nothing after it is written before; a rejection fails the body, so
 * the upstream never receives a complete request.
 */
export interface FieldScreen {
  readonly names: ReadonlySet<string>
  screen(name: string, value: string): Promise<string>
}

/**
 * One step's edit of a multipart form: its settings (every client part of a set name is dropped
 * and the step's value written once, where the first of them was, or first of all when `always`)
 * or its screen.
 */
export type FormEdit = { readonly set: readonly FieldSetting[] } | { readonly screen: FieldScreen }

/**
 * A text field's value as the upstream reads it; `bytes`: the client's, written back as they came
 * (a step's own value has none and is written in the form's charset).
 */
export interface FieldValue {
  readonly text: string
  readonly bytes?: Buffer
}

/** Where the edited parts go, in order. */
export interface PartWriter {
  /** A deferred value is written once it resolves; `held` counts its bytes kept meanwhile. */
  field(name: string, value: FieldValue | (() => Promise<FieldValue>), held: number): void
  file(head: PartHead, content: Readable): void
  /** A deferred value that is decided on in order but not written. */
  settle(value: () => Promise<unknown>, held: number): void
}

/**
 * Every edit of a form applied to each part as it is parsed, in the order the steps recorded
 * them: each edit sees the parts as the edits before it left them, exactly as if each had
 * rewritten the whole body in turn, but the body is parsed and written once.
 */
export class FormEditChain {
  readonly #edits: readonly FormEdit[]
  readonly #out: PartWriter
  /** Per edit, the names whose setting was written. */
  readonly #written: Set<string>[]

  constructor(edits: readonly FormEdit[], out: PartWriter) {
    this.#edits = edits
    this.#out = out
    this.#written = edits.map(() => new Set())
  }

  /** The settings written first of all: a later edit's come before an earlier one's. */
  start(): void {
    for (let index = this.#edits.length - 1; index >= 0; index--) {
      const edit = this.#edits[index] as FormEdit
      if ('set' in edit)
        for (const setting of edit.set) if (setting.always) this.#set(index, setting)
    }
  }

  field(name: string, value: FieldValue): void {
    this.#field(0, name, value)
  }

  file(head: PartHead, content: Readable): void {
    for (let index = 0; index < this.#edits.length; index++) {
      if (this.#replaced(index, head.name)) {
        content.resume()
        return
      }
    }
    this.#out.file(head, content)
  }

  #field(from: number, name: string, value: FieldValue): void {
    let deferred: (() => Promise<FieldValue>) | undefined
    for (let index = from; index < this.#edits.length; index++) {
      const edit = this.#edits[index] as FormEdit
      if ('screen' in edit) {
        if (!edit.screen.names.has(name)) continue
        const before = deferred ?? (() => Promise.resolve(value))
        const { screen } = edit
        deferred = async () => {
          const prior = await before()
          return screened(prior, await screen.screen(name, prior.text))
        }
      } else if (this.#replaced(index, name)) {
        // Screened before it was replaced: still decided on, in its place, but not written.
        if (deferred !== undefined) this.#out.settle(deferred, value.text.length)
        return
      }
    }
    this.#out.field(name, deferred ?? value, value.text.length)
  }

  /** A part named like one of this edit's settings: dropped; the setting takes the first one's place. */
  #replaced(index: number, name: string): boolean {
    const edit = this.#edits[index] as FormEdit
    if (!('set' in edit)) return false
    const setting = edit.set.find((candidate) => candidate.name === name)
    if (setting === undefined) return false
    if (!(this.#written[index] as Set<string>).has(name)) this.#set(index, setting)
    return true
  }

  #set(index: number, setting: FieldSetting): void {
    ;(this.#written[index] as Set<string>).add(setting.name)
    this.#field(index + 1, setting.name, { text: setting.value })
  }
}

/** A screen's answer: the value as it was when unchanged, else the screen's text. */
function screened(before: FieldValue, text: string): FieldValue {
  return text === before.text ? before : { text }
}
