/**
 * Hand-written analysis of each target for docs/benchmarks.md: why a target is where it is and
 * what was done about it. Numbers belong to the generated part of the document; prose here only
 * cites side measurements that are reproducible with the command given beside them.
 */
const ANALYSIS: Readonly<Record<string, string>> = {
  'cpu-excluded-vs-koa':
    'An excluded route runs everything the Koa floor runs (bench/upstream/koa-proxy.ts: the same relay as Koa middleware behind an error middleware) plus the inbound adapter, the public-route check, the access log, metrics and response header filtering; 1.15 × leaves those a few microseconds. A CPU profile (`npm run bench -- --only koa-floor,pc-excluded --cpu-prof`) shows where the rest goes.',
  'cpu-sa-warm-vs-koa':
    'A warm service-account request adds to the excluded route: the one-shot SHA-256 of the token, the cache lookup, the route match and scope check, the user_id query pin a scoped service account gets, the identity headers (built once per principal in use) and two more metrics observations (auth outcome and auth duration).',
  'cpu-rs256-same-vs-sa':
    'With the verified-token cache, a repeated token costs a SHA-256 of the token and a map lookup instead of the service-account cache lookup, so the row should cost what the warm service-account row does.',
  'cpu-es256-same-vs-sa':
    'As for RS256: a repeated token is answered from the verified-token cache.',
  'cpu-hs256-same-vs-sa':
    'As for RS256: a repeated token is answered from the verified-token cache.',
  'cpu-rs256-fresh':
    "A fresh token costs a signature check (node:crypto, with the key prepared once) plus everything a repeated token costs plus the claim checks and a new principal, and the verified-token cache turns over at this rate (20,000 distinct tokens through 10,000 entries), so each request also inserts and evicts. The bound counts 1.5 verifies over the Koa floor, i.e. it leaves the gateway's own work half a verify.",
  'cpu-401-vs-koa':
    'Koa answers a 401 itself in two ways beside it: from a thrown error (the "Koa, 401 from a thrown error" row) and set on the response with nothing thrown (the "Koa, 401 set on the response" row); the difference between the two is what unwinding an exception through the middleware chain costs. Most of either is the kernel work of reading and answering the request. The gateway answers a denied decision as the set-response row does: prepared status, challenge and body written by the authenticate step (src/http/refusal-response.ts), nothing thrown; a refusal costs no stack trace, and the access log and metrics cost what they cost on a proxied request.',
  'cpu-429-vs-koa':
    "A repeated refused token is answered from memory (src/service-accounts/refused-tokens.ts, remembered for the cache TTL but at most 60 s): the 429 costs what the 401 does plus the throttle's bookkeeping.",
  'access-log-cost':
    'The access log builds its line itself and hands the lines of one event-loop turn to standard output in one write; standard output is written in blocks of about 16 KB, flushed at least every second. Its cost used to grow with the length of the run because sonic-boom measures the byte length of its whole pending chunk (a string it must flatten, up to 16 KB) on every write: one write per line cost more the fuller the chunk was. This target is read from 10 s rounds.',
  'latency-p50':
    "At a fixed rate the added latency is the gateway's own time per request plus queueing on its one core. On a two-core machine the load generator, the upstream and the gateway share cores, so the measured difference also includes scheduling delay.",
  'latency-p99':
    'The tail follows the same cause as p50 plus garbage-collection pauses of the gateway process and scheduling delay on a shared two-core machine.',
  flood:
    "The flood sends distinct well-formed unknown tokens from one address. Once the address is limited, at most `service_accounts.throttled_lookups_per_second` (5) of its tokens a second are looked up in the store and the rest get 429 unread (a deliberate deviation: AgentOS looks every token up). What good clients lose is the gateway's own CPU for the 429s, on the same core: the flood costs its rate times the 429 row's CPU per request (target 5). On two cores the flood generator also shares a core with the good clients' load generator and the upstream.",
  'memory-postgres':
    "A cached account is one Map slot (the token's SHA-256 as a 32-character latin1 string, the very string its principal keeps) holding one small frozen principal, plus one small integer in the last-used tracker; scope lists are interned. What grows past the heap is V8 garbage not yet collected when RSS is read and heap space V8 keeps after the warm-up (the young generation's semi-spaces and free old-generation pages), which the cache's representation does not decide.",
  'memory-per-account':
    "Per cached account the heap holds: the principal (72 bytes: id, name, user id, scope list, expiry and token digest; the constant fields on its prototype, and it is its own serviceAccount view), the token digest (48, shared by the cache key and the principal's credentialHash), the account id (56), the `sa:` user id and the name as a slice of it (72), and a Map slot each in the cache and the last-used tracker (about 37 each): 324 bytes measured in process (bench/account-cache-heap.ts). The rest in the gateway is fixed rather than per account: the identity enforcer's plans for at most 4,096 principals in use and code compiled during the warm-up.",
  'rs256-vs-fastify':
    'The Fastify peer verifies the token (fast-jwt, its verified-token cache on) and relays the request through undici, with no logging; the gateway does the same plus authorization, identity enforcement, metrics and an access line per request. The peer is a bench-only dev dependency (docs/architecture.md).',
}

export function analysisOf(targetId: string): string {
  return ANALYSIS[targetId] ?? ''
}

/** What the hot-path work of issue 8 changed, and how it was measured. */
export const HOT_PATH_CHANGES: readonly string[] = [
  'Upstream responses are relayed through an undici dispatch handler (no stream pipeline, no AbortController per request); response headers are flushed ahead of the body only for event streams.',
  "The access log builds its line itself in the main logger's format (no pino call per request; the time formatted once per millisecond), without path censoring and deep redaction (its fields are made or validated by the gateway; the path and a relayed request id are scanned for tokens), and standard output is written in blocks of about 16 KB, flushed at least every second: with 4 KiB blocks the thread-pool round trip per write made the access log about 14 % of a proxied request's CPU. Side by side the access log then cost 0–3 µs per request in 6-second measurements (`--only node-floor,pc-excluded,pc-sa-warm,pc-sa-warm-nolog --rounds 2 --duration 6`) but about 10 µs in 10-second ones (`--only pc-excluded,pc-sa-warm,pc-sa-warm-nolog --rounds 3 --duration 10`; before this change about 18 µs): the longer the run, the more it costs, which points at the kernel side of writing a growing file rather than at the gateway's code; not explained yet.",
  'Presented tokens are hashed with the one-shot crypto.hash, the svc_pat_ checksum is computed in plain numbers, refusals capture no stack trace, the in-flight gauge is read at scrape time, and `Connection: keep-alive` from the upstream needs no parsing. Side by side (issue 14, `--rounds 2 --duration 6`, quiet machine): warm service-account token 125 → about 102 µs of CPU per request, excluded route 99 → about 81 µs, a 401 98 → 85 µs, a throttled 429 650 → about 106 µs (refused tokens remembered).',
  'Metrics on the request path use label children bound once instead of hashing a label object per call; later (issue 23) plain records exposed through the registry at scrape time (src/hot-metrics.ts), since prom-client validated and hashed the labels of a bound child on every call as well.',
  'Parsed scopes, trusted-proxy answers and interned scope lists are memoized (each table bounded).',
  'The service-account token checksum is checked only on a cache miss (a malformed token is never cached); the token lookup is a named prepared statement on PostgreSQL.',
  "Issue 8: before and after, side by side on a quiet machine (`npm run bench -- --ref 593d394 --only nginx,pc-excluded,pc-sa-warm --rounds 2 --duration 5`, then the same without `--ref`): warm service-account token 111 → about 97 µs of CPU per request, excluded route 86 → about 80 µs. On this shared virtual machine the CPU per request of the same build varies by up to 1.7× between runs and even between rounds of one run (steal from neighbours is invisible to the harness's accounting), so compare rows of one run, and use `--ref` for before and after.",
]
