/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) as a client of a server:
 * its CLI, `conformance server --url <url> --requirements <revision> -o <dir>`, run as a child
 * process (the package has no programmatic API; its one file is the CLI), with each scenario's
 * checks read back from the `checks.json` it writes.
 */
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Child } from './child-process.js'
import type { Teardown } from './gateway.js'
import { projectPath } from './project-root.js'

const CLI = projectPath('node_modules/@modelcontextprotocol/conformance/dist/index.js')

/** A protocol revision the suite can hold a server to, as its `--requirements` names it. */
export type ConformanceRevision = '2025-11-25' | '2026-07-28'

/** One check of a scenario's `checks.json`; INFO entries are the suite's log and are left out. */
export interface ConformanceCheck {
  readonly id: string
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED'
  readonly errorMessage?: string
}

/** Scenario name → its checks, in the order the suite wrote them. */
export type ConformanceResults = ReadonlyMap<string, readonly ConformanceCheck[]>

/**
 * The CLI's bundle imports `globSync` from `fs` at its top (Node.js 22 has it, the project's Node
 * 20 does not; upstream moved its own runs to Node 22), and only its `tier-check` command, which
 * reads GitHub, calls it. On a Node without it, a resolve hook gives the bundle `fs` plus a
 * `globSync` that throws, so the `server` command runs unchanged; on Node 22 nothing is added.
 */
function nodeCompatArgs(): string[] {
  if (typeof (fs as { globSync?: unknown }).globSync === 'function') return []
  const fsWithGlob =
    'import fs from "node:fs"; export * from "node:fs"; export default fs;' +
    'export function globSync() { throw new Error("fs.globSync needs Node.js 22"); }'
  const hooks =
    `const shim = ${JSON.stringify(`data:text/javascript,${encodeURIComponent(fsWithGlob)}`)};` +
    'export async function resolve(specifier, context, next) {' +
    '  const fromSuite = context.parentURL?.includes("/@modelcontextprotocol/conformance/");' +
    '  if (fromSuite && (specifier === "fs" || specifier === "node:fs"))' +
    '    return { url: shim, shortCircuit: true };' +
    '  return next(specifier, context);' +
    '}'
  const register =
    'import { register } from "node:module";' +
    `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`
  return ['--import', `data:text/javascript,${encodeURIComponent(register)}`]
}

/** `<scenario>-<ISO time>` under `server-`, as the CLI names each scenario's directory. */
const RESULT_DIR = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/

function readResults(dir: string): Map<string, ConformanceCheck[]> {
  const results = new Map<string, ConformanceCheck[]>()
  for (const entry of readdirSync(dir)) {
    const scenario = RESULT_DIR.exec(entry)?.[1]
    if (scenario === undefined) continue
    const checks = JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as (
      ConformanceCheck | { status: 'INFO' }
    )[]
    results.set(
      scenario,
      checks
        .filter((check): check is ConformanceCheck => check.status !== 'INFO')
        .map(({ id, status, errorMessage }) => ({ id, status, errorMessage })),
    )
  }
  return results
}

/**
 * Every server scenario that `revision` requires, run against the MCP endpoint at `url`. The CLI
 * exits 1 when any check fails; what counts is what it wrote, so a run that wrote no scenario is
 * an error carrying its output.
 */
export async function runServerConformance(
  t: Teardown,
  url: string,
  revision: ConformanceRevision,
): Promise<ConformanceResults> {
  const out = mkdtempSync(join(tmpdir(), 'portcullis-mcp-conformance-'))
  t.teardown(() => rmSync(out, { recursive: true, force: true }))
  const child = new Child(t, [
    ...nodeCompatArgs(),
    CLI,
    'server',
    '--url',
    url,
    '--requirements',
    revision,
    '--timeout',
    '20000',
    '-o',
    out,
  ])
  const { code } = await child.exit(90_000)
  const results = readResults(out)
  if (results.size === 0 || (code !== 0 && code !== 1)) {
    throw new Error(
      `conformance server exited ${code} with ${results.size} scenarios:\n` +
        [...child.stdout, ...child.stderr].join('\n'),
    )
  }
  return results
}
