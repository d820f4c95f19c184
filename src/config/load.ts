import { readFileSync } from 'node:fs'
import { parseDocument } from 'yaml'
import type { z } from 'zod'
import { applyEnvironment } from './env.js'
import { configSchema, type Config, type RawConfig } from './schema.js'
import { resolveSecret, type SecretSources } from './secrets.js'
import { checkConfigRules } from './rules.js'

/** Every problem of a config file, each prefixed with the key path it concerns. */
export class ConfigError extends Error {
  readonly issues: readonly string[]

  constructor(source: string, issues: readonly string[]) {
    super(
      `invalid configuration in ${source}:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`,
    )
    this.name = 'ConfigError'
    this.issues = issues
  }
}

export interface LoadOptions {
  env?: Readonly<Record<string, string | undefined>>
  readFile?: (path: string) => string
}

/** Reads, validates and freezes the config file at `path`; throws ConfigError listing every problem. */
export function loadConfig(path: string, options: LoadOptions = {}): Config {
  const readFile = options.readFile ?? ((file: string) => readFileSync(file, 'utf8'))
  let text: string
  try {
    text = readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    throw new ConfigError(path, [`cannot read the config file (${code})`])
  }
  return parseConfig(text, path, { env: options.env ?? {}, readFile })
}

/** Validates YAML text as a config; `source` names it in errors. */
export function parseConfig(text: string, source: string, sources: SecretSources): Config {
  const document = parseDocument(text, { uniqueKeys: true })
  if (document.errors.length > 0) {
    // The first line of a pretty error names the position ("… at line 3, column 3:").
    throw new ConfigError(
      source,
      document.errors.map(
        (error) => `YAML: ${(error.message.split('\n')[0] ?? error.message).replace(/:$/, '')}`,
      ),
    )
  }
  const tree: unknown = document.toJS() ?? {}
  if (typeof tree !== 'object' || tree === null || Array.isArray(tree)) {
    throw new ConfigError(source, [
      'the file must contain a mapping of sections (server:, auth:, …)',
    ])
  }
  const result = configSchema.safeParse(
    applyEnvironment(tree as Record<string, unknown>, sources.env),
  )
  if (!result.success) throw new ConfigError(source, result.error.issues.flatMap(describeIssue))

  const secretIssues: string[] = []
  const resolved = resolveSecrets(result.data, [], sources, secretIssues) as Config
  const issues = [...secretIssues, ...checkConfigRules(result.data, resolved, sources)]
  if (issues.length > 0) throw new ConfigError(source, issues)
  return deepFreeze(resolved)
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  const at = formatPath(issue.path)
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown key`)
  }
  if (issue.code === 'invalid_union') {
    // Secret references are the only unions with object branches; say what is accepted.
    return [`${at}: must be a string, {from_env: NAME} or {from_file: PATH}`]
  }
  return [`${at}: ${issue.message}`]
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)'
  return path
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`,
    )
    .join('')
}

function resolveSecrets(
  node: unknown,
  path: PropertyKey[],
  sources: SecretSources,
  issues: string[],
): unknown {
  if (Array.isArray(node)) {
    return node.map((item, index) => resolveSecrets(item, [...path, index], sources, issues))
  }
  if (typeof node !== 'object' || node === null) return node
  const keys = Object.keys(node)
  if (keys.length === 1 && (keys[0] === 'from_env' || keys[0] === 'from_file')) {
    const result = resolveSecret(node as { from_env: string } | { from_file: string }, sources)
    if ('error' in result) {
      issues.push(`${formatPath(path)}: ${result.error}`)
      return ''
    }
    return result.value
  }
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    copy[key] = resolveSecrets(value, [...path, key], sources, issues)
  }
  return copy
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

export type { Config, RawConfig }
