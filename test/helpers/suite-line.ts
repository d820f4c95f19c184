/**
 * The AgentOS line the suites are written against, pinned in every gateway they start unless a
 * test chooses (in its upstream section, or by PORTCULLIS_AGENTOS_VERSION): their upstreams include
 * servers that are no AgentOS (closed ports, blackholes, plain node:http servers, whatever listens
 * on the default address), which `auto` would refuse or wait for.
 */
export const SUITE_AGENTOS_LINE = '2.9'
