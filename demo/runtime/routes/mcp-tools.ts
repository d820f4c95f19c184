/** The AgentOS MCP tools; each result echoes its arguments (including `user_id`). */
import type { AppState } from '../context.js'
import { stringField, type JsonObject } from '../params.js'
import { FAMILIES, FAMILY_INFO, isFamily, runView, sessionView, type Family } from '../store.js'

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

export interface ToolOutcome {
  isError: boolean
  payload: JsonObject
}

function runTool(app: AppState, family: Family, args: JsonObject): JsonObject | string {
  const componentId = stringField(args, FAMILY_INFO[family].idKey) ?? ''
  if (!app.store.findComponent(family, componentId)) return `${FAMILY_INFO[family].label} not found`
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
    default: {
      const type = stringField(args, 'component_type') ?? 'agents'
      return {
        run_id: stringField(args, 'run_id') ?? null,
        component_type: isFamily(type) ? type : null,
      }
    }
  }
}

/** undefined for an unknown tool */
export function callTool(app: AppState, name: string, args: JsonObject): ToolOutcome | undefined {
  if (DESCRIPTIONS[name] === undefined) return undefined
  const result = toolResult(app, name, args)
  const payload = { tool: name, arguments: args, user_id: stringField(args, 'user_id') ?? null }
  return typeof result === 'string'
    ? { isError: true, payload: { ...payload, error: result } }
    : { isError: false, payload: { ...payload, result } }
}
