/** One HTTP request: route at header time, read the body, record it, then dispatch. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readBody, type ParsedBody } from './body.js'
import type { AppState, RequestContext } from './context.js'
import { sendDetail, sendJson } from './respond.js'
import type { Router } from './router.js'
import { parseTarget, stripTrailingSlashes } from './target.js'
import type { RecordedRequest } from './types.js'

export interface PipelineDeps {
  app: AppState
  router: Router
  record(request: RecordedRequest): void
}

function recordOf(
  req: IncomingMessage,
  body: ParsedBody,
  path: string,
  query: RecordedRequest['query'],
) {
  const recorded: RecordedRequest = {
    method: req.method ?? 'GET',
    path,
    rawUrl: req.url ?? '/',
    query,
    headers: { ...req.headers },
    rawHeaders: [...req.rawHeaders],
    bodyBytes: body.bytes,
    bodySha256: body.sha256,
  }
  if (body.form !== undefined) recorded.form = body.form
  if (body.files !== undefined) recorded.files = body.files
  if (body.json !== undefined) recorded.json = body.json
  return recorded
}

export function handleHttpRequest(req: IncomingMessage, res: ServerResponse, deps: PipelineDeps) {
  const method = req.method ?? 'GET'
  const target = parseTarget(req.url ?? '/')
  const path = stripTrailingSlashes(target.path)
  const match = deps.router.match(method, path)
  const aborter = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort()
  })
  const streamJson = match.kind === 'found' && match.route.options.streamBody === true
  const jsonLimitBytes = deps.app.settings.jsonLimitBytes

  const dispatch = async (body: ParsedBody): Promise<void> => {
    const recorded = recordOf(req, body, target.path, target.query)
    deps.record(recorded)
    if (match.kind === 'not-found') return sendDetail(res, 404, 'Not Found')
    if (match.kind === 'method-not-allowed') {
      return sendJson(res, 405, { detail: 'Method Not Allowed' }, { allow: match.allow.join(', ') })
    }
    const ctx: RequestContext = {
      req,
      res,
      method,
      path,
      template: match.route.template,
      params: match.params,
      query: target.query,
      body,
      recorded,
      signal: aborter.signal,
      app: deps.app,
    }
    await match.route.handler(ctx)
  }

  readBody(req, { jsonLimitBytes, streamJson })
    // a client that goes away mid-body is counted in `started` but never recorded
    .then(dispatch, () => res.destroy())
    .catch((error: unknown) => {
      console.error('demo runtime handler failed:', error)
      if (res.headersSent) res.destroy()
      else sendDetail(res, 500, 'Internal Server Error')
    })
}
