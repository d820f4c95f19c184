import { z } from 'zod'
import { secretRefSchema } from '../secrets.js'

export const serviceAccountsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Serve /service-accounts and verify svc_pat_ tokens.'),
    cache_ttl_seconds: z
      .number()
      .min(0)
      .default(30)
      .describe(
        'How long a verified token is trusted without a database lookup (SERVICE_ACCOUNT_CACHE_TTL_SECONDS); 0 disables the cache. Revocation normally arrives at once by notification; this is the bound when notifications are lost.',
      ),
    cache_max_entries: z
      .number()
      .int()
      .min(1)
      .default(100_000)
      .describe('Most verified tokens cached per process (LRU).'),
    max_failed_lookups: z
      .number()
      .int()
      .min(1)
      .default(20)
      .describe('Failed svc_pat_ verifications per client address within the window before 429.'),
    failed_lookup_window_seconds: z
      .number()
      .min(1)
      .default(60)
      .describe('Sliding window of the failed-lookup throttle.'),
    throttled_lookups_per_second: z
      .number()
      .int()
      .min(0)
      .default(5)
      .describe(
        'Store lookups per second allowed to a client address the failed-lookup throttle limits; its other svc_pat_ requests get 429 without one, so a flood of distinct unknown tokens cannot keep the store busy. 0: no bound (AgentOS looks every token up, even for a limited client).',
      ),
    throttle_max_clients: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe('Most client addresses tracked by the throttle (LRU); bounds its memory.'),
    last_used_interval_seconds: z
      .number()
      .min(0)
      .default(60)
      .describe('last_used_at is written at most once per this interval per account.'),
  })
  .prefault({})

export const databaseSchema = z
  .strictObject({
    url: secretRefSchema
      .nullable()
      .default(null)
      .describe(
        'PostgreSQL URL (DATABASE_URL). Unset: the embedded PostgreSQL (PGlite) in data_dir.',
      ),
    data_dir: z
      .string()
      .min(1)
      .default('data/portcullis')
      .describe('Directory of the embedded store when no url is set.'),
    pool_max: z.number().int().min(1).default(10).describe('PostgreSQL connection pool size.'),
    connect_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(3_000)
      .describe('Timeout for opening a database connection (→ 503, never a hang).'),
    query_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(3_000)
      .describe('Timeout of each database query (→ 503).'),
  })
  .prefault({})
