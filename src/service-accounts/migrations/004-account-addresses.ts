import type { Migration } from './migration.js'

/**
 * Where each account was used from: `last_used_from` beside `last_used_at`, and the client
 * addresses an account was seen from (a bounded number per account, least recently seen removed
 * first), so that a use from a new address is told apart on every replica and after a restart.
 * Times are epoch milliseconds.
 */
export const migration004: Migration = {
  version: '004',
  name: 'account_addresses',
  statements: [
    'ALTER TABLE portcullis_service_accounts ADD COLUMN last_used_from text',
    `CREATE TABLE portcullis_account_addresses (
      account_id text NOT NULL,
      address text NOT NULL,
      first_seen_at bigint NOT NULL,
      last_seen_at bigint NOT NULL,
      PRIMARY KEY (account_id, address)
    )`,
  ],
}
