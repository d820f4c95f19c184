/** The AgentOS MCP tools; each result echoes its arguments (including `user_id`). */
import type { AppState } from '../context.js'
import { stringField, type JsonObject } from '../params.js'
import { FAMILIES, FAMILY_INFO, runView, sessionView, type Family } from '../store.js'

const RUN_TOOLS: Record<string, Family> = {
  run_agent: 'agents',
  run_team: 'teams',
  run_workflow: 'workflows',
}

const DESCRIPTIONS: Record<string, string> = {
  get_agentos_config: 'Get the AgentOS configuration',
  run_agent: 'Run an agent',
  run_team: 'Run a team',
  run_workflow: 'Run a workflow',
  continue_run: 'Continue a paused run',
  cancel_run: 'Cancel a run',
  get_sessions: 'List sessions',
  get_session_runs: 'List the runs of a session',
}

export const MCP_TOOLS = Object.entries(DESCRIPTIONS).map(([name, description]) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: {}, additionalProperties: true },
}))

/** A result (echoing the arguments), or the text of what the AgentOS tool raises. */
export type ToolOutcome = { readonly payload: JsonObject } | { readonly raised: string }

class ToolRaised extends Error {}

function runTool(app: AppState, family: Family, args: JsonObject): JsonObject {
  const componentId = stringField(args, FAMILY_INFO[family].idKey) ?? ''
  if (!app.store.findComponent(family, componentId)) {
    throw new ToolRaised(`${FAMILY_INFO[family].label} ${componentId} not found`)
  }
  const run = app.store.createRun({
    family,
    component_id: componentId,
    session_id: stringField(args, 'session_id') || undefined,
    user_id: stringField(args, 'user_id') ?? null,
    message: stringField(args, 'message') ?? '',
    files: [],
  })
  return runView(run)
}

function toolResult(app: AppState, name: string, args: JsonObject): unknown {
  const userId = stringField(args, 'user_id')
  const runFamily = RUN_TOOLS[name]
  if (runFamily !== undefined) return runTool(app, runFamily, args)
  switch (name) {
    case 'get_agentos_config':
      return Object.fromEntries(FAMILIES.map((family) => [family, app.store.components[family]]))
    case 'get_sessions':
      return [...app.store.sessions.values()]
        .filter((session) => userId === undefined || session.user_id === userId)
        .filter((session) => {
          const type = stringField(args, 'session_type')
          return type === undefined || session.session_type === type
        })
        .map(sessionView)
    case 'get_session_runs':
      return [...app.store.runs.values()]
        .filter((run) => run.session_id === stringField(args, 'session_id'))
        .filter((run) => userId === undefined || run.user_id === userId)
        .map(runView)
    default:
      return lifecycleTool(app, name, args)
  }
}

/**
 * `continue_run` and `cancel_run` as AgentOS resolves them: exactly one component id, then the
 * component must exist. The ownership check is the caller's (the demo runs open: no caller).
 */
function lifecycleTool(app: AppState, name: string, args: JsonObject): JsonObject {
  const named = FAMILIES.filter((family) => stringField(args, FAMILY_INFO[family].idKey))
  const [family] = named
  if (family === undefined || named.length !== 1) {
    throw new ToolRaised('Provide exactly one of agent_id, team_id, or workflow_id')
  }
  const componentId = stringField(args, FAMILY_INFO[family].idKey) ?? ''
  if (!app.store.findComponent(family, componentId)) {
    throw new ToolRaised(`Component ${componentId} not found`)
  }
  const runId = stringField(args, 'run_id') ?? null
  const run = runId === null ? undefined : app.store.runs.get(runId)
  if (name === 'cancel_run' && run !== undefined) run.status = 'CANCELLED'
  return {
    run_id: runId,
    component_type: family,
    ...(name === 'cancel_run' ? { message: `Run ${runId} cancellation requested` } : {}),
  }
}

/** undefined for an unknown tool */
export function callTool(app: AppState, name: string, args: JsonObject): ToolOutcome | undefined {
  if (DESCRIPTIONS[name] === undefined) return undefined
  let result: unknown
  try {
    result = toolResult(app, name, args)
  } catch (error) {
    if (error instanceof ToolRaised) return { raised: error.message }
    throw error
  }
  const payload = { tool: name, arguments: args, user_id: stringField(args, 'user_id') ?? null }
  return { payload: { ...payload, result } }
}
