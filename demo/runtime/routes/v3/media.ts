/**
 * Session media (V3-MEDIA-1, routers/media/media.py) with local media storage: a run's files are
 * stored under keys recorded on the run, and served only through the run's session. The session
 * is looked up with the query `user_id` as the only scope an open AgentOS has.
 */
import type { RequestContext } from '../../context.js'
import { queryParam } from '../../params.js'
import { sendDetail } from '../../respond.js'
import type { Router } from '../../router.js'
import type { MediaRef, SessionRecord } from '../../store.js'
import { validQuery } from '../../validation.js'

/** `_MIME_TYPE_PATTERN`: a type/subtype of RFC 9110 tokens */
const MIME_TYPE = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+\/[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

/** Types a browser would run on the API's origin, served as an attachment of octet-stream. */
const ACTIVE_TYPES = [
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'text/xml',
  'application/xml',
]

function findSession(ctx: RequestContext, type: string | undefined): SessionRecord | undefined {
  const session = ctx.app.store.sessions.get(ctx.params['session_id'] ?? '')
  const userId = queryParam(ctx, 'user_id')
  if (session === undefined || (type !== undefined && session.session_type !== type))
    return undefined
  return userId === undefined || session.user_id === userId ? session : undefined
}

function findMedia(ctx: RequestContext, session: SessionRecord, key: string): MediaRef | undefined {
  for (const run of ctx.app.store.runs.values()) {
    if (run.session_id !== session.session_id) continue
    const media = run.v3?.media.find((ref) => ref.storage_key === key)
    if (media !== undefined) return media
  }
  return undefined
}

/** The stored object: the demo keeps no file bytes, so it serves a stand-in naming the file. */
function send(ctx: RequestContext, media: MediaRef): void {
  const body = Buffer.from(`demo media ${media.filename} (${media.size} bytes)\n`)
  let type = media.mime_type.split(';')[0]?.trim().toLowerCase() ?? ''
  if (!MIME_TYPE.test(type)) type = 'application/octet-stream'
  const headers: Record<string, string | number> = { 'x-content-type-options': 'nosniff' }
  if (ACTIVE_TYPES.includes(type)) {
    headers['content-disposition'] = 'attachment'
    type = 'application/octet-stream'
  }
  ctx.res.writeHead(200, { ...headers, 'content-type': type, 'content-length': body.length })
  ctx.res.end(body)
}

function getMedia(ctx: RequestContext): void {
  const query = validQuery(ctx, {
    type: { kind: 'enum', values: ['agent', 'team', 'workflow'] },
    redirect: { kind: 'bool', default: false },
  })
  if (query === undefined) return
  // `{storage_key:path}` needs at least one character after `/media/`
  if (ctx.params['storage_key'] === '') return sendDetail(ctx.res, 404, 'Not Found')
  const id = ctx.params['session_id'] ?? ''
  const session = findSession(ctx, query['type'] as string | undefined)
  if (session === undefined) return sendDetail(ctx.res, 404, `Session '${id}' not found`)
  const media = findMedia(ctx, session, ctx.params['storage_key'] ?? '')
  if (media === undefined) return sendDetail(ctx.res, 404, 'Media not found in this session')
  // local storage has no http(s) URL to redirect to, so `redirect=true` streams as well
  send(ctx, media)
}

export function registerMediaRoutes(router: Router): void {
  router.add('GET', '/sessions/{session_id}/media/{storage_key...}', getMedia)
}
