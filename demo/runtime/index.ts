export { startAgentRuntime } from './server.js'
export type {
  AgentOsLine,
  AgentRuntime,
  AgentRuntimeOptions,
  ReceivedFile,
  RecordedRequest,
  RecordedWsConnection,
} from './types.js'
