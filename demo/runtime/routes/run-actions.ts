/** Acting on existing runs (cancel, continue, resume, fork) and reading them back. */
import type { RequestContext } from '../context.js'
import { inputField, queryParam, requireWellFormedForm } from '../params.js'
import { sendDetail, sendJson } from '../respond.js'
import type { Router } from '../router.js'
import { FAMILIES, FAMILY_INFO, runView, type Family, type RunRecord } from '../store.js'
import { requireComponent } from './catalog.js'

const RUN_ACTIONS = { cancel: 'CANCELLED', continue: 'COMPLETED', resume: 'RUNNING' } as const

/**
 * A line's check of a run about to be continued, given the run the form's session holds for the
 * path's component; false when it answered the request itself.
 */
export type ContinueCheck = (ctx: RequestContext, family: Family, run: RunRecord) => boolean

function runAction(
  family: Family,
  action: keyof typeof RUN_ACTIONS,
  continueCheck: ContinueCheck | undefined,
) {
  return (ctx: RequestContext): void => {
    if (!requireWellFormedForm(ctx)) return
    const idKey = FAMILY_INFO[family].idKey
    const componentId = ctx.params[idKey] ?? ''
    if (requireComponent(ctx, family, componentId) === undefined) return
    const runId = ctx.params['run_id'] ?? ''
    const status = RUN_ACTIONS[action]
    const run = ctx.app.store.runs.get(runId)
    if (run !== undefined && action === 'cancel') run.status = status
    const continued =
      action === 'continue' &&
      run?.family === family &&
      run.component_id === componentId &&
      run.session_id === inputField(ctx, 'session_id')
    if (continued && continueCheck !== undefined && !continueCheck(ctx, family, run)) return
    sendJson(ctx.res, 200, {
      action,
      run_id: runId,
      [idKey]: componentId,
      session_id: inputField(ctx, 'session_id') ?? null,
      user_id: inputField(ctx, 'user_id') ?? null,
      status,
    })
  }
}

function forkSession(family: Family) {
  return (ctx: RequestContext): void => {
    const idKey = FAMILY_INFO[family].idKey
    const componentId = ctx.params[idKey] ?? ''
    if (requireComponent(ctx, family, componentId) === undefined) return
    const userId = queryParam(ctx, 'user_id') ?? null
    const fork = ctx.app.store.createSession({
      session_type: FAMILY_INFO[family].sessionType,
      component_id: componentId,
      user_id: userId,
      session_name: inputField(ctx, 'session_name') ?? null,
    })
    sendJson(ctx.res, 200, {
      session_id: fork.session_id,
      forked_from: ctx.params['session_id'] ?? null,
      [idKey]: componentId,
      user_id: userId,
    })
  }
}

/** The path's run, if it belongs to the path's component and to the query's user and session. */
function visibleRun(ctx: RequestContext, family: Family, run: RunRecord | undefined) {
  if (run?.family !== family) return undefined
  if (run.component_id !== ctx.params[FAMILY_INFO[family].idKey]) return undefined
  const userId = queryParam(ctx, 'user_id')
  const sessionId = queryParam(ctx, 'session_id')
  if (userId !== undefined && run.user_id !== userId) return undefined
  if (sessionId !== undefined && run.session_id !== sessionId) return undefined
  return run
}

function requireRun(ctx: RequestContext, family: Family): RunRecord | undefined {
  const run = visibleRun(ctx, family, ctx.app.store.runs.get(ctx.params['run_id'] ?? ''))
  if (run === undefined) sendDetail(ctx.res, 404, 'Run not found')
  return run
}

const checkpoints = (run: RunRecord) =>
  [0, 1, 2].map((index) => ({
    checkpoint_index: index,
    run_id: run.run_id,
    user_id: run.user_id,
    created_at: run.created_at,
  }))

function registerReads(router: Router, family: Family, base: string): void {
  router
    .add('GET', `${base}/runs`, (ctx) => {
      const runs = [...ctx.app.store.runs.values()].filter((run) => visibleRun(ctx, family, run))
      sendJson(ctx.res, 200, runs.map(runView))
    })
    .add('GET', `${base}/runs/{run_id}`, (ctx) => {
      const run = requireRun(ctx, family)
      if (run !== undefined) sendJson(ctx.res, 200, runView(run))
    })
    .add('GET', `${base}/runs/{run_id}/checkpoints`, (ctx) => {
      const run = requireRun(ctx, family)
      if (run !== undefined) sendJson(ctx.res, 200, checkpoints(run))
    })
    .add('GET', `${base}/runs/{run_id}/checkpoints/{checkpoint_index}`, (ctx) => {
      const run = requireRun(ctx, family)
      if (run === undefined) return
      const checkpoint = checkpoints(run)[Number(ctx.params['checkpoint_index'])]
      if (checkpoint === undefined) sendDetail(ctx.res, 404, 'Checkpoint not found')
      else sendJson(ctx.res, 200, checkpoint)
    })
}

export function registerRunActionRoutes(router: Router, continueCheck?: ContinueCheck): void {
  for (const family of FAMILIES) {
    const base = `/${family}/{${FAMILY_INFO[family].idKey}}`
    for (const action of ['cancel', 'continue', 'resume'] as const) {
      router.add(
        'POST',
        `${base}/runs/{run_id}/${action}`,
        runAction(family, action, continueCheck),
      )
    }
    if (family !== 'workflows') {
      router.add('POST', `${base}/sessions/{session_id}/fork`, forkSession(family))
    }
    registerReads(router, family, base)
  }
}
