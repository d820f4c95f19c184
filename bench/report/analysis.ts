/**
 * Hand-written analysis of each target for docs/benchmarks.md: why a target is where it is and
 * what was done about it. Numbers belong to the generated part of the document; prose here only
 * cites side measurements that are reproducible with the command given beside them.
 */
const ANALYSIS: Readonly<Record<string, string>> = {
  'sa-vs-nginx':
    'Node itself sets the floor: the "bare Node proxy" row is node:http in front of the same undici pool with no logic at all (bench/upstream/bare-proxy.ts), and it already costs about twice what nginx does per request. Reaching 0.45 × nginx leaves Portcullis a few microseconds above that floor for routing, canonical paths, header rebuilding, authentication, authorization, identity headers, metrics and the access log, which is not achievable on Node\'s HTTP stack. The hot-path work (below) removed what could be removed without changing behaviour; what remains is spread over many small steps, none above a few percent in a CPU profile (`npm run bench -- --cpu-prof`).',
  'jwt-vs-haproxy':
    'With the verified-token cache, a repeated RS256 token costs a SHA-256 of the token and a map lookup, so this row costs about the same as the warm service-account row: the gap to HAProxy is the gap between a Node proxy and a C proxy (see the row above), not signature verification.',
  'auth-vs-excluded':
    'An authenticated request does everything an excluded one does plus: credential extraction, a SHA-256 of the token, the cache lookup, route matching and scope checks, the user_id query pin for self-scoped service accounts, and the X-Auth-* identity headers. Scope strings are parsed once and memoized, label sets of the metrics are bound once, identity headers are built once per principal in use, and the token checksum is only checked on a cache miss; what remains is mostly the identity enforcement the product exists for.',
  'latency-p50':
    "At a fixed rate the added latency is the gateway's own time per request plus queueing on its one core; the first has been cut (below). On a two-core machine the load generator, the upstream and the gateway share cores, so the measured difference also includes scheduling delay.",
  'latency-p99':
    'The tail follows the same cause as p50 plus garbage-collection pauses of the gateway process and scheduling delay on a shared two-core machine.',
  'pg-nocache':
    'With the cache off every request waits for one indexed lookup over the network. The lookup is now a named prepared statement (parsed and planned once per connection) and the pool has `service_accounts.pool_max` connections (default 10); with PostgreSQL sharing the two cores with the gateway, the load generator and the upstream, the database round trip and the CPU the server spends on it bound the rate. AgentOS itself manages about 240 req/s here.',
  flood:
    "The flood sends distinct well-formed unknown tokens, and a token is looked up before the throttle answers (PAT-4: a valid token from a throttled address still passes), so every flooded token costs a store query: a refused token is remembered (src/service-accounts/refused-tokens.ts), but distinct ones cannot be. On two cores the flood generator (a Node process asked for 5,000 req/s) also runs on the same core as the good clients' load generator and the upstream; the flood never reaches its asked rate, which shows that core saturated, so part of the loss is the generator competing for that core. A fair measurement needs a machine with a spare core for the flood.",
  'cpu-429-vs-floor':
    "A repeated refused token is now answered from memory (src/service-accounts/refused-tokens.ts, remembered for the cache TTL but at most 60 s): the 429 used to include a PGlite query and cost about 650 µs; it now costs what the 401 does plus the throttle's bookkeeping. The floor for a locally answered request is Koa's, as for the 401 (see it).",
  'cpu-401-vs-floor':
    'Koa alone answers a 401 from a thrown error for 1.15–1.4 × the bare proxy\'s whole proxied request (runs differ; compare the rows of this run) (the "Koa, 401 from a thrown error" row: bench/upstream/koa-proxy.ts, no logic at all), and a bare node:http 401 costs about 0.45 ×; most of either is the kernel work of reading and answering the request (the response write is about a quarter of the CPU in a profile). 0.6 × is below what Koa itself costs for a local answer, so this target needs refusals answered before Koa (in the node:http request listener), which would move the error table, access log and metrics for those answers out of the Koa chain. Done meanwhile: refusals capture no stack trace (about 5 µs each), and the access log and metrics cost what they cost on a proxied request.',
  'cpu-sa-warm-vs-floor':
    'The "Koa proxy" row is the bare proxy\'s relay run as Koa middleware behind an error middleware, with no other logic (bench/upstream/koa-proxy.ts): on this machine it costs 1.15–1.35 × the bare proxy by itself (runs differ; compare the rows of this run), so 1.35 × leaves Portcullis a few microseconds at most for authentication, authorization, identity enforcement, the access log and metrics. What the gateway adds over the Koa floor is spread over many small steps (a CPU profile shows no function above about 1.5 % of the busy time: the inbound adapter, route match and scope check, identity plan, three histogram observations, the access line, response header filtering) plus the promises of six async middleware. Reaching the target needs the proxied path off Koa (node:http request listener, Koa kept for the gateway\'s own endpoints), a design change the architecture does not make today, and then the remaining per-request work cut by about two thirds.',
  'cpu-excluded-vs-floor':
    'An excluded route is below the Koa floor\'s ratio only if the gateway adds nothing to Koa; the "Koa proxy" row alone is 1.15–1.35 × the bare proxy on this machine, so 1.2 × leaves the gateway nothing while the request path runs on Koa. The excluded route still runs the inbound adapter, the public-route check, the access log, metrics and response header filtering.',
  'cpu-sa-warm-vs-excluded':
    'Authentication and identity enforcement on a warm token: the one-shot SHA-256 of the token, the cache lookup, the route match and scope check, the user_id query pin a scoped service account gets, the identity headers (built once per principal in use) and two more metrics observations (auth outcome and auth duration). The gap to 1.10 × is a few microseconds.',
  'cpu-rs256-fresh':
    "A fresh token costs a signature check (node:crypto, with the key prepared once) plus everything a repeated token costs plus the claim checks and a new principal, and the verified-token cache turns over at this rate (20,000 distinct tokens through 10,000 entries), so each request also inserts and evicts. The bound counts 1.5 verifies over the bare proxy, i.e. it leaves no room for the gateway's own work beyond half a verify.",
  'latency-p99-issue14':
    'The tail follows the same cause as p50 plus garbage-collection pauses of the gateway process and scheduling delay on a shared two-core machine.',
  'memory-start-postgres':
    'Node itself is about 42 MB (its binary, mapped and read, is most of the file-backed RSS); the rest is the modules the gateway loads (koa, undici, zod, pino, prom-client, jose, pg, …, whose source V8 keeps in the heap) and their state. Only the store driver in use is loaded (PGlite is not, with PostgreSQL). The value is read once the start has settled: two seconds after readiness the garbage of the start-up (configuration parsing, module loading) is still in the heap, about 17 MB more.',
  'memory-postgres':
    'A cached account is one Map entry (its token hash, the very string its principal keeps) holding the frozen principal and the time it was stored, plus one small integer in the last-used tracker; scope lists are interned. What grows past the heap is V8 garbage not yet collected when RSS is read and heap space V8 keeps after the warm-up.',
  'memory-per-account':
    "Per cached account the heap holds: the token hash (80 bytes, shared by the cache key and the principal's credentialHash), the account id, name and `sa:` user id (about 140 bytes of strings), the principal (96) and its serviceAccount object (40), the cache entry (48) and the two Map slots (about 80); scopes are one shared list. The identity headers built once per principal (src/identity/identity-headers.ts: five header pairs in a WeakMap keyed by the principal) add about 580 bytes per account; without that memo the heap per account is about 500 bytes. Reaching 400 bytes needs the header plan of the request-path redesign (issue 13) not to keep a copy per principal.",
  'embedded-first-start-peak':
    'A first start unpacks the shipped template (store-template/, an initialised and migrated data directory for the installed PGlite, made by `npm run gen:store-template`) in a short-lived child process instead of running initdb, which ran three PostgreSQL instances in WebAssembly (about 800 MB). The child peaks under 100 MB and gives it back when it exits.',
  'embedded-first-start-rss':
    'After unpacking, a first start is a restart: the migrations are in the template, so the serving process runs no DDL (which left tens of megabytes of PostgreSQL memory behind).',
  'embedded-restart-rss':
    "PGlite's WebAssembly memory is reserved at 128 MB but only what PostgreSQL touches is resident: its shared memory (a 2 MB buffer pool and one backend's share instead of 16 MB and 100 backends) and its catalog caches. The compiled module, PGlite's file-system bundle (6 MB) and V8's compilation buffers make up the rest; initdb's module is no longer compiled in the serving process.",
  revocation:
    'Revocations are announced with PostgreSQL NOTIFY; every replica evicts the token from its cache when the notification arrives, and drops its whole cache after a gap in notifications.',
}

export function analysisOf(targetId: string): string {
  return ANALYSIS[targetId] ?? ''
}

/** What the hot-path work of issue 8 changed, and how it was measured. */
export const HOT_PATH_CHANGES: readonly string[] = [
  'Upstream responses are relayed through an undici dispatch handler (no stream pipeline, no AbortController per request); response headers are flushed ahead of the body only for event streams.',
  "The access log builds its line itself in the main logger's format (no pino call per request; the time formatted once per millisecond), without path censoring and deep redaction (its fields are made or validated by the gateway; the path and a relayed request id are scanned for tokens), and standard output is written in blocks of about 16 KB, flushed at least every second: with 4 KiB blocks the thread-pool round trip per write made the access log about 14 % of a proxied request's CPU. Side by side the access log then cost 0–3 µs per request in 6-second measurements (`--only node-floor,pc-excluded,pc-sa-warm,pc-sa-warm-nolog --rounds 2 --duration 6`) but about 10 µs in 10-second ones (`--only pc-excluded,pc-sa-warm,pc-sa-warm-nolog --rounds 3 --duration 10`; before this change about 18 µs): the longer the run, the more it costs, which points at the kernel side of writing a growing file rather than at the gateway's code; not explained yet.",
  'Presented tokens are hashed with the one-shot crypto.hash, the svc_pat_ checksum is computed in plain numbers, refusals capture no stack trace, the in-flight gauge is read at scrape time, and `Connection: keep-alive` from the upstream needs no parsing. Side by side (issue 14, `--rounds 2 --duration 6`, quiet machine): warm service-account token 125 → about 102 µs of CPU per request, excluded route 99 → about 81 µs, a 401 98 → 85 µs, a throttled 429 650 → about 106 µs (refused tokens remembered).',
  'Metrics on the request path use label children bound once instead of hashing a label object per call.',
  'Parsed scopes, trusted-proxy answers and interned scope lists are memoized (each table bounded).',
  'The service-account token checksum is checked only on a cache miss (a malformed token is never cached); the token lookup is a named prepared statement on PostgreSQL.',
  "Issue 8: before and after, side by side on a quiet machine (`npm run bench -- --ref 593d394 --only nginx,pc-excluded,pc-sa-warm --rounds 2 --duration 5`, then the same without `--ref`): warm service-account token 111 → about 97 µs of CPU per request, excluded route 86 → about 80 µs. On this shared virtual machine the CPU per request of the same build varies by up to 1.7× between runs and even between rounds of one run (steal from neighbours is invisible to the harness's accounting), so compare rows of one run, and use `--ref` for before and after.",
]
