import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { parseDocument } from 'yaml'
import { deepFreeze } from '../deep-freeze.js'
import type { z } from 'zod'
import { applyEnvironmentWithOrigins, type EnvOrigin } from './env.js'
import { configSchema, type Config, type RawConfig } from './schema.js'
import { resolveSecret, type SecretSources } from './secrets.js'
import { checkConfigRules } from './rules.js'
import { suggestKey } from './suggest.js'
import { configWarnings } from './warnings.js'

/**
 * Every problem of a config file, each prefixed with the key path it concerns: one line for one
 * problem, else a line per problem under a heading.
 */
export class ConfigError extends Error {
  readonly issues: readonly string[]

  constructor(source: string, issues: readonly string[]) {
    super(
      issues.length === 1
        ? `invalid configuration in ${source}: ${issues[0] ?? ''}`
        : `invalid configuration in ${source}:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`,
    )
    this.name = 'ConfigError'
    this.issues = issues
  }
}

export interface LoadOptions {
  env?: Readonly<Record<string, string | undefined>>
  readFile?: (path: string) => string
}

export interface ParseOptions {
  /**
   * Directory that relative paths written in the file resolve against: the config file's own
   * directory when loaded from a file, the working directory otherwise. Paths from environment
   * variables and defaults resolve against the working directory.
   */
  readonly baseDir?: string
}

/** A file the configuration names, with the path it resolves to. */
export interface ConfigFile {
  readonly key: string
  readonly path: string
}

/** A valid configuration, with what `config check` reports about it. */
export interface InspectedConfig {
  readonly config: Config
  /** Valid but probably not intended (the gateway runs open, an empty file, …). */
  readonly warnings: readonly string[]
  /** Every file or directory the configuration names, as an absolute path. */
  readonly files: readonly ConfigFile[]
}

// Keys holding a file system path (besides `{from_file: …}` secret references anywhere).
const PATH_KEYS: readonly (readonly string[])[] = [
  ['auth', 'jwks_file'],
  ['auth', 'jwks_ca_file'],
  ['database', 'data_dir'],
  ['identity', 'assertion', 'signing_keys_file'],
]

/** Reads, validates and freezes the config file at `path`; throws ConfigError listing every problem. */
export function loadConfig(path: string, options: LoadOptions = {}): Config {
  return inspectConfig(path, options).config
}

/** loadConfig, also returning the warnings and the files the configuration names. */
export function inspectConfig(path: string, options: LoadOptions = {}): InspectedConfig {
  const readFile = options.readFile ?? ((file: string) => readFileSync(file, 'utf8'))
  let text: string
  try {
    text = readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    throw new ConfigError(path, [`cannot read the config file (${code})`])
  }
  return inspectConfigText(
    text,
    path,
    { env: options.env ?? {}, readFile },
    { baseDir: dirname(resolve(path)) },
  )
}

/** Validates YAML text as a config; `source` names it in errors. */
export function parseConfig(
  text: string,
  source: string,
  sources: SecretSources,
  options: ParseOptions = {},
): Config {
  return inspectConfigText(text, source, sources, options).config
}

function inspectConfigText(
  text: string,
  source: string,
  sources: SecretSources,
  options: ParseOptions,
): InspectedConfig {
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
  const parsed: unknown = document.toJS()
  const empty = parsed === null || parsed === undefined
  const tree: unknown = parsed ?? {}
  if (typeof tree !== 'object' || tree === null || Array.isArray(tree)) {
    throw new ConfigError(source, [
      'the file must contain a mapping of sections (server:, auth:, …)',
    ])
  }
  const baseDir = options.baseDir ?? process.cwd()
  const fromFile = resolveRelativePaths(tree, baseDir)
  const applied = applyEnvironmentWithOrigins(fromFile, sources.env)
  const result = configSchema.safeParse(applied.tree)
  if (!result.success || applied.issues.length > 0) {
    const schemaIssues = result.success ? [] : result.error.issues.flatMap(describeIssue)
    throw configError(source, [...applied.issues, ...schemaIssues], applied.origins)
  }
  // What the environment and the defaults gave is relative to the working directory.
  const raw = resolveRelativePaths(result.data, process.cwd()) as RawConfig
  const secretIssues: string[] = []
  const files: ConfigFile[] = []
  const resolved = resolveSecrets(raw, [], sources, secretIssues, files) as Config
  const issues = [...secretIssues, ...checkConfigRules(raw, resolved, sources)]
  if (issues.length > 0) throw configError(source, issues, applied.origins)
  const config = deepFreeze(resolved)
  const warnings = [
    ...(empty ? ['the file is empty: every setting has its default value'] : []),
    ...configWarnings(config),
  ]
  return { config, warnings, files: [...namedPaths(config), ...files] }
}

/** Issues about keys an environment variable filled name the variable, not the file. */
function configError(
  source: string,
  issues: readonly string[],
  origins: ReadonlyMap<string, EnvOrigin>,
): ConfigError {
  const named = issues.map((issue) => {
    const match = /^([\w.]+): (.*)$/s.exec(issue)
    const origin = match === null ? undefined : origins.get(match[1] ?? '')
    if (match === null || origin === undefined) return issue
    const value = origin.shown === undefined ? '' : `=${JSON.stringify(origin.shown)}`
    return `${origin.env}${value} (environment variable for ${match[1]}): ${match[2]}`
  })
  const fromEnvironment = named.some((issue) => /^[A-Z][A-Z0-9_]*[=( ]/.test(issue))
  return new ConfigError(fromEnvironment ? `${source} and the environment` : source, named)
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  const at = formatPath(issue.path)
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const parent = issue.path.map(String).join('.')
      const suggestion = suggestKey(parent, key)
      const hint = suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`
      return `${formatPath([...issue.path, key])}: unknown key${hint}`
    })
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

/**
 * A copy of the tree with every relative path (the PATH_KEYS and `{from_file: …}` references)
 * made absolute against `baseDir`. Values of the wrong type are left for the schema to report.
 */
function resolveRelativePaths(tree: object, baseDir: string): Record<string, unknown> {
  const absolute = (value: unknown): unknown =>
    typeof value === 'string' && value !== '' && !isAbsolute(value)
      ? resolve(baseDir, value)
      : value
  const walk = (node: unknown, path: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, path))
    if (typeof node !== 'object' || node === null) return node
    const copy: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      const here = [...path, key]
      const isPath =
        key === 'from_file' || PATH_KEYS.some((keys) => keys.join('.') === here.join('.'))
      copy[key] = isPath ? absolute(value) : walk(value, here)
    }
    return copy
  }
  return walk(tree, []) as Record<string, unknown>
}

/** The PATH_KEYS that are set and in use. */
function namedPaths(config: Config): ConfigFile[] {
  const files: ConfigFile[] = []
  if (config.auth.jwks_file !== null)
    files.push({ key: 'auth.jwks_file', path: config.auth.jwks_file })
  if (config.auth.jwks_ca_file !== null)
    files.push({ key: 'auth.jwks_ca_file', path: config.auth.jwks_ca_file })
  if (config.service_accounts.enabled && config.database.url === null)
    files.push({ key: 'database.data_dir', path: config.database.data_dir })
  const signing = config.identity.assertion
  if (signing.enabled && signing.signing_keys_file !== null)
    files.push({ key: 'identity.assertion.signing_keys_file', path: signing.signing_keys_file })
  return files
}

function resolveSecrets(
  node: unknown,
  path: PropertyKey[],
  sources: SecretSources,
  issues: string[],
  files: ConfigFile[],
): unknown {
  if (Array.isArray(node)) {
    return node.map((item, index) => resolveSecrets(item, [...path, index], sources, issues, files))
  }
  if (typeof node !== 'object' || node === null) return node
  const keys = Object.keys(node)
  if (keys.length === 1 && (keys[0] === 'from_env' || keys[0] === 'from_file')) {
    const ref = node as { from_env: string } | { from_file: string }
    if ('from_file' in ref) files.push({ key: formatPath(path), path: ref.from_file })
    const result = resolveSecret(ref, sources)
    if ('error' in result) {
      issues.push(`${formatPath(path)}: ${result.error}`)
      return ''
    }
    return result.value
  }
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    copy[key] = resolveSecrets(value, [...path, key], sources, issues, files)
  }
  return copy
}

export type { Config, RawConfig }
