/** Knowledge contents: streamed multipart uploads are counted, never kept. */
import type { RequestContext } from '../context.js'
import {
  inputField,
  jsonObject,
  paginate,
  requestedUserId,
  requireWellFormedForm,
  stringField,
  type JsonObject,
} from '../params.js'
import { sendDetail, sendJson } from '../respond.js'
import type { Router } from '../router.js'
import { nowSeconds, ownedView, type OwnedRecord } from '../store.js'

const CONTENT_FIELDS = ['name', 'description', 'url', 'metadata', 'reader_id', 'text_content']

/** The known content fields, from a form or a JSON body. */
function contentFields(ctx: RequestContext): JsonObject {
  const fields: JsonObject = {}
  for (const key of CONTENT_FIELDS) {
    const value = inputField(ctx, key)
    if (value !== undefined) fields[key] = value
  }
  return fields
}

const view = (record: OwnedRecord) => ownedView(record, 'id')

function requireContent(ctx: RequestContext): OwnedRecord | undefined {
  const id = ctx.params['content_id'] ?? ''
  const record = ctx.app.store.knowledge.get(id)
  if (record === undefined) sendDetail(ctx.res, 404, `Content not found: ${id}`)
  return record
}

/**
 * The owner a new content row gets. 3.0 stamps it from its own auth state only (V3-KNOW-1), which
 * an open AgentOS does not have: none. The 2.9 demo keeps the `user_id` the client sent.
 */
function contentOwner(ctx: RequestContext): string | null {
  return ctx.app.settings.agentos === '3.0' ? null : requestedUserId(ctx)
}

function uploadContent(ctx: RequestContext): void {
  if (!requireWellFormedForm(ctx)) return
  const files = ctx.body.files ?? []
  const textLength = Buffer.byteLength(inputField(ctx, 'text_content') ?? '')
  const record = ctx.app.store.createOwned(ctx.app.store.knowledge, contentOwner(ctx), {
    ...contentFields(ctx),
    status: 'processing',
    size: files.reduce((total, file) => total + file.size, textLength),
    files,
  })
  sendJson(ctx.res, 202, view(record))
}

export function registerKnowledgeRoutes(router: Router): void {
  router
    .add('GET', '/knowledge/content', (ctx) => {
      sendJson(ctx.res, 200, paginate(ctx, [...ctx.app.store.knowledge.values()].map(view)))
    })
    .add('POST', '/knowledge/content', uploadContent)
    .add('DELETE', '/knowledge/content', (ctx) => {
      ctx.app.store.knowledge.clear()
      sendJson(ctx.res, 200, 'success')
    })
    .add('GET', '/knowledge/content/{content_id}', (ctx) => {
      const record = requireContent(ctx)
      if (record !== undefined) sendJson(ctx.res, 200, view(record))
    })
    .add('GET', '/knowledge/content/{content_id}/status', (ctx) => {
      // an unknown id is a failed status, not a 404
      const id = ctx.params['content_id'] ?? ''
      const record = ctx.app.store.knowledge.get(id)
      sendJson(ctx.res, 200, {
        id,
        status: record === undefined ? 'failed' : stringField(record.fields, 'status'),
        status_message: record === undefined ? 'Content not found' : '',
      })
    })
    .add('PATCH', '/knowledge/content/{content_id}', (ctx) => {
      const record = requireContent(ctx)
      if (record === undefined || !requireWellFormedForm(ctx)) return
      record.fields = { ...record.fields, ...contentFields(ctx) }
      record.updated_at = nowSeconds()
      sendJson(ctx.res, 200, view(record))
    })
    .add('DELETE', '/knowledge/content/{content_id}', (ctx) => {
      // removes what is there and answers the id alone, whether there was anything or not
      const id = ctx.params['content_id'] ?? ''
      ctx.app.store.knowledge.delete(id)
      sendJson(ctx.res, 200, { id })
    })
    .add('GET', '/knowledge/config', (ctx) =>
      sendJson(ctx.res, 200, {
        readers: { text: { id: 'text', name: 'Text reader' } },
        chunkers: { fixed: { key: 'fixed', name: 'Fixed size chunker' } },
        vector_dbs: [],
        filters: [],
      }),
    )
    .add('POST', '/knowledge/search', (ctx) => {
      const query = stringField(jsonObject(ctx), 'query') ?? ''
      const hits = [...ctx.app.store.knowledge.values()].filter((record) =>
        (stringField(record.fields, 'name') ?? '').includes(query),
      )
      sendJson(ctx.res, 200, paginate(ctx, hits.map(view)))
    })
    .add('POST', '/knowledge/remote-content', (ctx) => {
      if (!requireWellFormedForm(ctx)) return
      const record = ctx.app.store.createOwned(ctx.app.store.knowledge, contentOwner(ctx), {
        ...contentFields(ctx),
        status: 'processing',
        size: 0,
        files: [],
      })
      sendJson(ctx.res, 202, view(record))
    })
    .add('GET', '/knowledge/{knowledge_id}/sources', (ctx) =>
      sendJson(ctx.res, 200, [{ id: 'local', knowledge_id: ctx.params['knowledge_id'] }]),
    )
    .add('GET', '/knowledge/{knowledge_id}/sources/{source_id}/files', (ctx) =>
      sendJson(ctx.res, 200, {
        knowledge_id: ctx.params['knowledge_id'],
        source_id: ctx.params['source_id'],
        files: [],
      }),
    )
}
