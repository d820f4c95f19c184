import type { Migration } from './migration.js'

/**
 * Who created an upstream row the open AgentOS cannot record an owner for (OWN-1). `kind` is the
 * gateway's closed list (`OwnedResource`), kept as text so that a new kind needs no
 * migration; `owner` null is a workspace-level row, as AgentOS's own null `user_id`.
 */
export const migration002: Migration = {
  version: '002',
  name: 'resource_owners',
  statements: [
    `CREATE TABLE portcullis_resource_owners (
      kind text NOT NULL,
      id text NOT NULL,
      owner text,
      created_at bigint NOT NULL,
      PRIMARY KEY (kind, id)
    )`,
  ],
}
