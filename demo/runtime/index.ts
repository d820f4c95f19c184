export { startAgentRuntime } from './server.js'
export type {
  AgentRuntime,
  AgentRuntimeOptions,
  ReceivedFile,
  RecordedRequest,
  RecordedWsConnection,
} from './types.js'
