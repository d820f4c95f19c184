/** `/workflows/ws`: AgentOS's workflow protocol as an open (no-auth) instance speaks it. */
import type { WebSocket } from 'ws'
import type { AppState } from '../context.js'
import { isJsonObject, stringField, type JsonObject } from '../params.js'
import { sendJsonFrame, toBuffer } from './frames.js'

function echoIds(message: JsonObject): JsonObject {
  return {
    workflow_id: stringField(message, 'workflow_id') ?? null,
    run_id: stringField(message, 'run_id') ?? null,
    session_id: stringField(message, 'session_id') ?? null,
    user_id: stringField(message, 'user_id') ?? null,
  }
}

function startWorkflow(socket: WebSocket, app: AppState, message: JsonObject): void {
  const workflowId = stringField(message, 'workflow_id')
  if (workflowId === undefined) {
    return sendJsonFrame(socket, { event: 'error', error: 'workflow_id is required' })
  }
  if (!app.store.findComponent('workflows', workflowId)) {
    return sendJsonFrame(socket, { event: 'error', error: `Workflow ${workflowId} not found` })
  }
  const run = app.store.createRun({
    family: 'workflows',
    component_id: workflowId,
    session_id: stringField(message, 'session_id') || undefined,
    user_id: stringField(message, 'user_id') ?? null,
    message: stringField(message, 'message') ?? '',
    files: [],
  })
  const ids = {
    workflow_id: workflowId,
    run_id: run.run_id,
    session_id: run.session_id,
    user_id: run.user_id,
  }
  sendJsonFrame(socket, { event: 'WorkflowStarted', ...ids })
  const timer = setTimeout(() => {
    sendJsonFrame(socket, { event: 'WorkflowCompleted', ...ids, content: run.content })
  }, app.settings.sseIntervalMs)
  socket.once('close', () => clearTimeout(timer))
}

function handleAction(socket: WebSocket, app: AppState, message: JsonObject): void {
  const action = message['action']
  switch (action) {
    case 'ping':
      return sendJsonFrame(socket, { event: 'pong' })
    case 'authenticate':
      return sendJsonFrame(socket, {
        event: 'authenticated',
        message: 'Authentication successful. You can now send commands.',
      })
    case 'start-workflow':
      return startWorkflow(socket, app, message)
    case 'continue-workflow':
      return sendJsonFrame(socket, { event: 'WorkflowContinued', ...echoIds(message) })
    case 'reconnect':
      return sendJsonFrame(socket, { event: 'reconnected', ...echoIds(message) })
    default: {
      // Python formats a missing action as None
      const shown =
        typeof action === 'string' ? action : action === undefined ? 'None' : JSON.stringify(action)
      return sendJsonFrame(socket, { event: 'error', error: `Unknown action: ${shown}` })
    }
  }
}

export function handleWorkflowsSocket(socket: WebSocket, app: AppState): void {
  sendJsonFrame(socket, {
    event: 'connected',
    message: 'Connected to AgentOS.',
    requires_auth: false,
  })
  socket.on('message', (data, isBinary) => {
    if (isBinary) return socket.send(toBuffer(data), { binary: true })
    const text = toBuffer(data).toString('utf8')
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      return socket.send(text)
    }
    if (isJsonObject(message)) handleAction(socket, app, message)
    else socket.send(text)
  })
}
