/** CRUD for user-owned records (memories, learnings): `user_id` filters reads and owns writes. */
import type { RequestContext } from '../context.js'
import { paginate, queryParam, requestedUserId, requireJsonObject, stringField } from '../params.js'
import { sendDetail, sendEmpty, sendJson } from '../respond.js'
import type { Router } from '../router.js'
import { nowSeconds, ownedView, type DemoStore, type OwnedRecord } from '../store.js'

export interface OwnedCollection {
  /** e.g. `/memories` */
  path: string
  /** path parameter and id key of the view, e.g. `memory_id` */
  idKey: string
  /** for `<label> not found` */
  label: string
  records(store: DemoStore): Map<string, OwnedRecord>
  /** a body field that creating requires */
  requiredField: string
  createStatus: number
}

/** The path's record, hidden when a user id is given and it belongs to someone else. */
export function findOwned(ctx: RequestContext, collection: OwnedCollection) {
  const record = collection.records(ctx.app.store).get(ctx.params[collection.idKey] ?? '')
  const userId = requestedUserId(ctx)
  if (record === undefined || (userId !== null && record.user_id !== userId)) return undefined
  return record
}

function requireOwned(ctx: RequestContext, collection: OwnedCollection) {
  const record = findOwned(ctx, collection)
  if (record === undefined) sendDetail(ctx.res, 404, `${collection.label} not found`)
  return record
}

function create(ctx: RequestContext, collection: OwnedCollection): void {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  if (body[collection.requiredField] === undefined) {
    const loc = ['body', collection.requiredField]
    return sendDetail(ctx.res, 422, [{ type: 'missing', loc, msg: 'Field required', input: body }])
  }
  const { user_id: _owner, ...fields } = body
  const userId = stringField(body, 'user_id') ?? queryParam(ctx, 'user_id') ?? null
  const record = ctx.app.store.createOwned(collection.records(ctx.app.store), userId, fields)
  sendJson(ctx.res, collection.createStatus, ownedView(record, collection.idKey))
}

export function registerOwnedCollection(router: Router, collection: OwnedCollection): void {
  const itemPath = `${collection.path}/{${collection.idKey}}`
  router
    .add('GET', collection.path, (ctx) => {
      const userId = queryParam(ctx, 'user_id')
      const records = [...collection.records(ctx.app.store).values()].filter(
        (record) => userId === undefined || record.user_id === userId,
      )
      const views = records.map((record) => ownedView(record, collection.idKey))
      sendJson(ctx.res, 200, paginate(ctx, views))
    })
    .add('POST', collection.path, (ctx) => create(ctx, collection))
    .add('GET', itemPath, (ctx) => {
      const record = requireOwned(ctx, collection)
      if (record !== undefined) sendJson(ctx.res, 200, ownedView(record, collection.idKey))
    })
    .add('PATCH', itemPath, (ctx) => {
      const record = requireOwned(ctx, collection)
      const body = record === undefined ? undefined : requireJsonObject(ctx)
      if (record === undefined || body === undefined) return
      const { user_id: _owner, ...fields } = body
      record.fields = { ...record.fields, ...fields }
      record.updated_at = nowSeconds()
      sendJson(ctx.res, 200, ownedView(record, collection.idKey))
    })
    .add('DELETE', itemPath, (ctx) => {
      const record = findOwned(ctx, collection)
      if (record !== undefined) collection.records(ctx.app.store).delete(record.id)
      sendEmpty(ctx.res, 204)
    })
}
