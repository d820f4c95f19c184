import type { ClientBody } from '../../inbound/client-body.js'
import type { FieldPin } from '../../identity/field-pin.js'
import type { FieldScreen } from '../../inbound/form-edits.js'
import { rewriteFieldList } from '../../identity/url-encoded-fields.js'

/**
 * Puts the form (url-encoded or multipart) of the request's body, as the steps before left it,
 * through `screen`: every value of a screened field is decided on before the upstream can act on
 * it, and written as the screen returns it. A url-encoded form is read whole (`maxBytes` at most)
 * and decided on before anything is sent; a multipart form is screened in the one rewrite that
 * forwards it (with the identity pins): it streams, files included, each screened field held
 * until its screen resolves, and a screen that rejects fails the body before its end, so the
 * upstream never receives a complete request. A body of another kind is left as
 * it is: the run routes read forms only.
 */
export async function screenForm(body: ClientBody, screen: FieldScreen): Promise<void> {
  switch (body.kind) {
    case 'urlencoded':
      return screenUrlEncoded(body, screen)
    case 'multipart':
      body.editForm({ screen })
      return
    case 'json':
    case 'none':
    case 'other':
      return
  }
}

/**
 * Every screened value is decided on; a field whose screen changes any of its copies is sent
 * once, as the screen returns the copy the upstream reads (the last).
 */
async function screenUrlEncoded(body: ClientBody, screen: FieldScreen): Promise<void> {
  // latin1 keeps every byte; the field lists decode names and values as Python does.
  const text = (await body.bytes()).toString('latin1')
  const names = [...screen.names]
  const { observed } = rewriteFieldList(text, 'form', [], names)
  const pins: FieldPin[] = []
  for (const name of names) {
    let changed = false
    let last: string | undefined
    for (const value of observed.get(name) ?? []) {
      const sent = String(value)
      last = await screen.screen(name, sent)
      changed ||= last !== sent
    }
    if (changed && last !== undefined) pins.push({ name, value: last, always: false })
  }
  if (pins.length > 0)
    body.setBytes(Buffer.from(rewriteFieldList(text, 'form', pins, []).text, 'latin1'))
}
