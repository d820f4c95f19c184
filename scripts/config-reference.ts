import { z } from 'zod'
import { ENV_BINDINGS } from '../src/config/env.js'
import { configSchema } from '../src/config/schema.js'

interface JsonSchema {
  type?: string | string[]
  description?: string
  default?: unknown
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  enum?: unknown[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  additionalProperties?: boolean | JsonSchema
}

const PREAMBLE = `# Configuration reference

<!-- Generated from src/config/schema.ts by \`npm run gen\`; a test fails when it drifts. -->

Portcullis reads one YAML file (default \`config/portcullis.yaml\`, chosen with \`--config\`). It is
validated against one schema when the gateway starts: every problem is listed with its key path,
unknown keys are refused, and the process exits with status 2 before anything listens. Check a
file without starting anything: \`portcullis config check --config <file>\`.

**Secrets** (keys marked *secret*) are given inline, or by reference so they can live in
Kubernetes Secrets: \`{from_env: NAME}\` reads an environment variable, \`{from_file: /path}\` reads a
file (one trailing newline is ignored).

**Environment variables** fill keys the file leaves unset; a value in the file wins. The exception
is \`JWT_VERIFICATION_KEY\`, which is appended to \`auth.verification_keys\` even when the file gives
a list (as AgentOS does). A bad value is reported by the variable's name (\`PORTCULLIS_PORT="abc"
(environment variable for server.port): must be a non-negative number\`); an unknown key by the
closest known one (\`server.prot: unknown key (did you mean server.port?)\`).

**Relative paths** written in the file (\`auth.jwks_file\`, \`database.data_dir\`,
\`identity.assertion.signing_keys_file\`, \`{from_file: …}\`) resolve against the config file's
directory; relative paths from environment variables and the defaults resolve against the working
directory. \`config check\` prints every resolved path.
`

/** Renders docs/configuration.md from the schema: one table per section, every key. */
export function renderConfigurationReference(): string {
  const root = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema
  const envByPath = new Map(ENV_BINDINGS.map((binding) => [binding.path.join('.'), binding.env]))
  const parts = [PREAMBLE]
  for (const [section, schema] of Object.entries(root.properties ?? {})) {
    parts.push(`\n## \`${section}\`\n`)
    parts.push('| Key | Type | Default | Environment | Description |')
    parts.push('|---|---|---|---|---|')
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      parts.push(...rows(`${section}.${key}`, property, envByPath))
    }
  }
  parts.push(`\n## Environment variables\n`)
  parts.push('| Variable | Key |')
  parts.push('|---|---|')
  for (const binding of ENV_BINDINGS) {
    parts.push(
      `| \`${binding.env}\` | \`${binding.path.join('.')}\`${binding.kind === 'append' ? ' (appended)' : ''} |`,
    )
  }
  return `${parts.join('\n')}\n`
}

function rows(path: string, schema: JsonSchema, envByPath: Map<string, string>): string[] {
  const nested = schema.type === 'object' && schema.properties !== undefined
  if (nested) {
    return Object.entries(schema.properties ?? {}).flatMap(([key, child]) =>
      rows(`${path}.${key}`, child, envByPath),
    )
  }
  const env = envByPath.get(path)
  return [
    `| \`${path}\` | ${typeOf(schema)} | ${defaultOf(schema)} | ${env === undefined ? '' : `\`${env}\``} | ${escape(schema.description ?? '')} |`,
  ]
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum !== undefined)
    return schema.enum.map((value) => `\`${String(value)}\``).join(' \\| ')
  if (schema.anyOf !== undefined) {
    const variants = schema.anyOf.map(typeOf)
    if (variants.some((variant) => variant.includes('from_env'))) return 'string (*secret*)'
    return [...new Set(variants)].join(' or ')
  }
  if (schema.properties?.from_env !== undefined || schema.properties?.from_file !== undefined)
    return 'from_env/from_file'
  if (schema.type === 'array') return `list of ${typeOf(schema.items ?? {})}`
  if (schema.type === 'object') return 'map'
  if (schema.type === 'null') return 'null'
  if (schema.type === 'integer' || schema.type === 'number')
    return `${schema.type}${bounds(schema)}`
  return Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any')
}

/** ` 16–65535`, ` ≥ 16`, ` > 0` or nothing: every bound the schema sets. */
function bounds(schema: JsonSchema): string {
  const max = schema.maximum !== undefined && schema.maximum < 1e9 ? schema.maximum : undefined
  if (schema.minimum !== undefined && max !== undefined) return ` ${schema.minimum}–${max}`
  if (schema.minimum !== undefined && schema.minimum > -1e9) return ` ≥ ${schema.minimum}`
  if (schema.exclusiveMinimum !== undefined) return ` > ${schema.exclusiveMinimum}`
  if (max !== undefined) return ` ≤ ${max}`
  return ''
}

function defaultOf(schema: JsonSchema): string {
  if (!('default' in schema)) return '*required*'
  if (schema.default === null) return 'unset'
  return `\`${JSON.stringify(schema.default)}\``
}

function escape(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}
