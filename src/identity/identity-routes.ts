/** Identity texts of AgentOS's handlers. */

/** The 403 text for a scoped caller naming another user on a learnings route (ISO-3). */
export function learningsDenial(method: string, path: string): string {
  if (method === 'DELETE') return 'Cannot delete learnings for another user'
  if (method === 'GET' || method === 'HEAD') {
    return path === '/learnings/users'
      ? 'Cannot list learning users for another user'
      : 'Cannot list learnings for another user'
  }
  return 'Cannot create learnings for another user'
}
