import type { Migration } from './migration.js'

/**
 * The audit trail of service-account credentials: append-only, each row carrying the SHA-256 of
 * the one before it (`seq` order), so that `portcullis audit verify` can prove nothing was changed
 * or removed in between. Times are epoch milliseconds. The trigger refuses every UPDATE and
 * TRUNCATE, and every DELETE except retention's, which sets `portcullis.audit_prune` for its own
 * transaction only; it guards against mistakes, while the hash chain is what proves the rest.
 */
export const migration003: Migration = {
  version: '003',
  name: 'audit_events',
  statements: [
    `CREATE TABLE portcullis_audit_events (
      seq bigint PRIMARY KEY CHECK (seq > 0),
      id text NOT NULL UNIQUE,
      occurred_at bigint NOT NULL,
      type text NOT NULL,
      actor_kind text,
      actor text,
      account_id text,
      account_name text,
      client_address text,
      request_id text,
      details jsonb NOT NULL CHECK (jsonb_typeof(details) = 'object'),
      prev_hash text NOT NULL,
      hash text NOT NULL
    )`,
    `CREATE INDEX idx_portcullis_audit_events_account
      ON portcullis_audit_events (account_id, seq)`,
    `CREATE INDEX idx_portcullis_audit_events_occurred_at
      ON portcullis_audit_events (occurred_at)`,
    `CREATE FUNCTION portcullis_audit_events_append_only() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND current_setting('portcullis.audit_prune', true) = 'on' THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'portcullis_audit_events is append-only (% refused)', TG_OP
          USING ERRCODE = 'insufficient_privilege';
      END
    $$`,
    `CREATE TRIGGER portcullis_audit_events_no_change
      BEFORE UPDATE OR DELETE ON portcullis_audit_events
      FOR EACH ROW EXECUTE FUNCTION portcullis_audit_events_append_only()`,
    `CREATE TRIGGER portcullis_audit_events_no_truncate
      BEFORE TRUNCATE ON portcullis_audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION portcullis_audit_events_append_only()`,
  ],
}
