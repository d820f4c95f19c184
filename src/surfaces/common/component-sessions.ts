/** The component families whose runs and sessions AgentOS keeps apart. */
export type Family = 'agents' | 'teams' | 'workflows'

/**
 * How the upstream's session API names each family: the `type` query value and the member that
 * holds the component id in a session.
 */
export const SESSION_TYPES: Readonly<Record<Family, readonly [type: string, idKey: string]>> = {
  agents: ['agent', 'agent_id'],
  teams: ['team', 'team_id'],
  workflows: ['workflow', 'workflow_id'],
}
