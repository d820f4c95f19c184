/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the MCP surface:
 * every server scenario that the revisions 2025-11-25 and 2026-07-28 require, run once directly
 * against the demo runtime (an open AgentOS's MCP server: the reference) and once through the
 * real gateway in front of another, with a JWT. The gateway must change no check's result.
 *
 * The suite's server runner sends no credential and has no option for one, so both runs go
 * through the same relay, which adds `Authorization: Bearer <jwt>` on the gateway's side only:
 * the gateway stays as a deployment runs it (JWT RBAC, the MCP route authenticated).
 */
import t from 'tap'
import { startCredentialRelay } from '../../helpers/credential-relay.js'
import {
  runServerConformance,
  type ConformanceResults,
  type ConformanceRevision,
} from '../../helpers/mcp-conformance.js'
import { startRuntime } from '../../helpers/runtime.js'
import { ADMIN, jConfig, jwt, stack } from './helpers.js'

const J = await stack(t, jConfig())
const reference = await startRuntime(t, { sseIntervalMs: 5 })
const direct = await startCredentialRelay(t, reference.url, undefined)
const gateway = await startCredentialRelay(t, J.gateway.url, `Bearer ${await jwt([ADMIN])}`)

/**
 * The checks that test what a gateway carries (the handshake, sessions, listing, streams, the
 * DNS-rebinding guard, JSON-RPC errors, every message against the revision's schema) and that an
 * AgentOS MCP server passes. The suite's other scenarios call fixture tools, prompts and resources
 * of its own reference server, which AgentOS does not have: they fail alike in both runs.
 */
const CARRIED: Record<ConformanceRevision, Record<string, readonly string[]>> = {
  '2025-11-25': {
    'server-initialize': ['server-initialize', 'server-session-id-visible-ascii'],
    ping: ['ping'],
    'tools-list': ['tools-list', 'tools-name-format'],
    'server-sse-multiple-streams': [
      'server-accepts-multiple-post-streams',
      'server-sse-streams-functional',
    ],
    'dns-rebinding-protection': ['localhost-host-valid-accepted'],
  },
  '2026-07-28': {
    'tools-list': ['tools-list', 'tools-name-format', 'tools-list-deterministic-order'],
    'server-sse-multiple-streams': [
      'server-accepts-multiple-post-streams',
      'server-sse-streams-functional',
    ],
    'sep-2164-resource-not-found': ['sep-2164-no-empty-contents'],
    'input-required-result-unsupported-methods': ['sep-2322-not-on-unsupported-requests'],
    'input-required-result-validate-input': [
      'sep-2322-validate-input-responses',
      'sep-2322-error-on-protocol-error',
    ],
    'dns-rebinding-protection': ['localhost-host-valid-accepted'],
  },
}

/** Scenario → `id=STATUS` of each check, scenarios in name order (messages hold ports and ids). */
function outcomes(results: ConformanceResults): Record<string, string[]> {
  return Object.fromEntries(
    [...results.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([scenario, checks]) => [scenario, checks.map((c) => `${c.id}=${c.status}`)]),
  )
}

function statusOf(results: ConformanceResults, scenario: string, id: string): string | undefined {
  return results.get(scenario)?.find((check) => check.id === id)?.status
}

for (const revision of ['2025-11-25', '2026-07-28'] as const) {
  void t.test(`the ${revision} requirements: the gateway changes no check's result`, async (t) => {
    const alone = await runServerConformance(t, `${direct.url}/mcp`, revision)
    const through = await runServerConformance(t, `${gateway.url}/mcp`, revision)
    for (const [scenario, ids] of Object.entries(CARRIED[revision])) {
      for (const id of ids) {
        t.equal(statusOf(alone, scenario, id), 'SUCCESS', `${scenario}: ${id} (reference)`)
        t.equal(statusOf(through, scenario, id), 'SUCCESS', `${scenario}: ${id} (gateway)`)
      }
    }
    const schemaChecked = [...through.entries()].filter(([, checks]) =>
      checks.some((check) => check.id === 'wire-schema-valid'),
    )
    t.ok(schemaChecked.length > 10, 'most scenarios check every message against the schema')
    for (const [scenario] of schemaChecked) {
      t.equal(statusOf(through, scenario, 'wire-schema-valid'), 'SUCCESS', `${scenario}: schema`)
    }
    t.same(outcomes(through), outcomes(alone), 'every check as the reference')
    t.ok(
      J.runtime.requests.some((request) => request.path === '/mcp'),
      'the gateway run reached its upstream',
    )
  })
}
