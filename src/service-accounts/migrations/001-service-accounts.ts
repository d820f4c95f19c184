import type { Migration } from './migration.js'

export const SERVICE_ACCOUNTS_TABLE = 'portcullis_service_accounts'

/** The columns of AgentOS's service-account table (TOKEN-1), times in epoch seconds. */
export const migration001: Migration = {
  version: '001',
  name: 'service_accounts',
  statements: [
    `CREATE TABLE portcullis_service_accounts (
      id text PRIMARY KEY,
      name text NOT NULL,
      user_id text,
      token_hash text NOT NULL,
      token_prefix text NOT NULL,
      scopes jsonb NOT NULL CHECK (jsonb_typeof(scopes) = 'array'),
      created_at bigint NOT NULL,
      expires_at bigint,
      last_used_at bigint,
      revoked_at bigint,
      created_by text,
      CONSTRAINT portcullis_service_accounts_token_hash_key UNIQUE (token_hash)
    )`,
    `CREATE INDEX idx_portcullis_service_accounts_created_at
      ON portcullis_service_accounts (created_at)`,
    // Names are unique among active accounts only, so a revoked name can be minted again.
    `CREATE UNIQUE INDEX portcullis_service_accounts_uq_active_name
      ON portcullis_service_accounts (name) WHERE revoked_at IS NULL`,
  ],
}
