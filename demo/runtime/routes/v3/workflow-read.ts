/**
 * 3.0's `GET /workflows/{workflow_id}` also reads a pinned config version (`version` query). An
 * open AgentOS treats every caller as privileged (V3-DRAFT-1): a draft reads as a published one
 * does. Without a version the read is 2.9's.
 */
import type { RequestContext } from '../../context.js'
import { sendDetail, sendJson } from '../../respond.js'
import type { Router } from '../../router.js'
import { validQuery } from '../../validation.js'
import { requireComponent } from '../catalog.js'

function readWorkflow(ctx: RequestContext): void {
  const query = validQuery(ctx, { version: { kind: 'int' } })
  if (query === undefined) return
  const id = ctx.params['workflow_id'] ?? ''
  const version = query['version'] as number | undefined
  if (version === undefined) {
    const component = requireComponent(ctx, 'workflows', id)
    if (component !== undefined) sendJson(ctx.res, 200, component)
    return
  }
  const row = ctx.app.catalog.find(id)
  const config =
    row?.component_type === 'workflow' ? ctx.app.catalog.config(id, version) : undefined
  if (row === undefined || config === undefined)
    return sendDetail(ctx.res, 404, 'Workflow not found')
  sendJson(ctx.res, 200, {
    id,
    name: row.name,
    description: row.description,
    version: config.version,
    stage: config.stage,
  })
}

/** Registered before the 2.9 catalogue routes, whose read of the same path it replaces. */
export function registerWorkflowReadV3(router: Router): void {
  router.add('GET', '/workflows/{workflow_id}', readWorkflow)
}
