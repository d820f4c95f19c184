/** Session CRUD, honouring `user_id` as a filter (reads) or an owner (writes). */
import type { RequestContext } from '../context.js'
import {
  isJsonObject,
  paginate,
  queryParam,
  requestedUserId,
  requireJsonObject,
  stringField,
  stringList,
  type JsonObject,
} from '../params.js'
import { sendDetail, sendEmpty, sendJson } from '../respond.js'
import type { Router } from '../router.js'
import {
  FAMILY_INFO,
  familyOfSessionType,
  runView,
  sessionView,
  type SessionRecord,
  type SessionType,
} from '../store.js'

/** `?type=`, default `agent`; answers 422 and returns undefined when it is not a session type. */
function sessionType(ctx: RequestContext): SessionType | undefined {
  const type = queryParam(ctx, 'type') ?? 'agent'
  if (type === 'agent' || type === 'team' || type === 'workflow') return type
  sendDetail(ctx.res, 422, [
    {
      type: 'enum',
      loc: ['query', 'type'],
      msg: "Input should be 'agent', 'team' or 'workflow'",
      input: type,
    },
  ])
  return undefined
}

function requireSession(ctx: RequestContext): SessionRecord | undefined {
  const type = sessionType(ctx)
  if (type === undefined) return undefined
  const id = ctx.params['session_id'] ?? ''
  const session = ctx.app.store.findSession(id, type, requestedUserId(ctx) ?? undefined)
  if (session === undefined) {
    const label = FAMILY_INFO[familyOfSessionType(type)].label
    sendDetail(ctx.res, 404, `${label} Session with id '${id}' not found`)
  }
  return session
}

/** An optional JSON body: absent means `{}`, malformed answers an error and gives undefined. */
function optionalJson(ctx: RequestContext): JsonObject | undefined {
  return ctx.body.bytes === 0 ? {} : requireJsonObject(ctx)
}

function applyUpdate(session: SessionRecord, body: JsonObject): void {
  const name = stringField(body, 'session_name')
  if (name !== undefined) session.session_name = name
  const state = body['session_state']
  if (isJsonObject(state)) session.session_state = state
  const metadata = body['metadata']
  if (isJsonObject(metadata)) session.metadata = metadata
  session.updated_at = Math.floor(Date.now() / 1000)
}

function createSession(ctx: RequestContext): void {
  const type = sessionType(ctx)
  const body = type === undefined ? undefined : optionalJson(ctx)
  if (type === undefined || body === undefined) return
  const sessionId = stringField(body, 'session_id')
  if (sessionId !== undefined && ctx.app.store.sessions.has(sessionId)) {
    return sendEmpty(ctx.res, 409)
  }
  const idKey = FAMILY_INFO[familyOfSessionType(type)].idKey
  const session = ctx.app.store.createSession({
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
    session_type: type,
    component_id: stringField(body, idKey) ?? null,
    user_id: stringField(body, 'user_id') ?? null,
    session_name: stringField(body, 'session_name') ?? null,
  })
  applyUpdate(session, body)
  sendJson(ctx.res, 201, sessionView(session))
}

function deleteSessions(ctx: RequestContext): void {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  const userId = requestedUserId(ctx)
  for (const id of stringList(body['session_ids'])) {
    const session = ctx.app.store.sessions.get(id)
    if (session && (userId === null || session.user_id === userId)) {
      ctx.app.store.sessions.delete(id)
    }
  }
  sendEmpty(ctx.res, 204)
}

export function registerSessionRoutes(router: Router): void {
  router
    .add('GET', '/sessions', (ctx) => {
      const type = sessionType(ctx)
      if (type === undefined) return
      const userId = queryParam(ctx, 'user_id')
      const componentId = queryParam(ctx, 'component_id')
      const sessions = [...ctx.app.store.sessions.values()].filter(
        (session) =>
          session.session_type === type &&
          (userId === undefined || session.user_id === userId) &&
          (componentId === undefined || session.component_id === componentId),
      )
      sendJson(ctx.res, 200, paginate(ctx, sessions.map(sessionView)))
    })
    .add('POST', '/sessions', createSession)
    .add('DELETE', '/sessions', deleteSessions)
    .add('GET', '/sessions/{session_id}', (ctx) => {
      const session = requireSession(ctx)
      if (session !== undefined) sendJson(ctx.res, 200, sessionView(session))
    })
    .add('PATCH', '/sessions/{session_id}', (ctx) => {
      const session = requireSession(ctx)
      const body = session === undefined ? undefined : requireJsonObject(ctx)
      if (session === undefined || body === undefined) return
      applyUpdate(session, body)
      sendJson(ctx.res, 200, sessionView(session))
    })
    .add('POST', '/sessions/{session_id}/rename', (ctx) => {
      const session = requireSession(ctx)
      const body = session === undefined ? undefined : requireJsonObject(ctx)
      if (session === undefined || body === undefined) return
      if (stringField(body, 'session_name') === undefined) {
        return sendDetail(ctx.res, 422, [
          { type: 'missing', loc: ['body', 'session_name'], msg: 'Field required', input: body },
        ])
      }
      applyUpdate(session, body)
      sendJson(ctx.res, 200, sessionView(session))
    })
    .add('DELETE', '/sessions/{session_id}', (ctx) => {
      const session = ctx.app.store.sessions.get(ctx.params['session_id'] ?? '')
      const userId = requestedUserId(ctx)
      if (session && (userId === null || session.user_id === userId)) {
        ctx.app.store.sessions.delete(session.session_id)
      }
      sendEmpty(ctx.res, 204)
    })
    .add('GET', '/sessions/{session_id}/runs', (ctx) => {
      const session = requireSession(ctx)
      if (session === undefined) return
      const runs = [...ctx.app.store.runs.values()].filter(
        (run) => run.session_id === session.session_id,
      )
      sendJson(ctx.res, 200, runs.map(runView))
    })
}
