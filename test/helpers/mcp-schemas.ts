import { readdirSync, readFileSync } from 'node:fs'
import * as z from 'zod'
import { projectUrl } from './project-root.js'

/** The messages the gateway writes on the MCP surface, as the fixtures name them. */
export type McpMessageKind =
  'CallToolResultResponse' | 'JSONRPCErrorResponse' | 'JSONRPCBatchResponse'

interface Fixture {
  readonly version: string
  readonly messages: Readonly<Record<string, string>>
  readonly definitions: Record<string, unknown>
}

const DIRECTORY = projectUrl('test/fixtures/mcp/')

function load(file: string): Fixture {
  return JSON.parse(readFileSync(new URL(file, DIRECTORY), 'utf8')) as Fixture
}

/**
 * One protocol revision's required fields (test/fixtures/mcp/<version>.schema.json, written from
 * the spec's schema.ts): which messages exist in it, and whether one is valid.
 */
export class McpRevisionSchema {
  readonly version: string
  readonly #fixture: Fixture
  readonly #schemas = new Map<string, z.ZodType>()

  constructor(fixture: Fixture) {
    this.version = fixture.version
    this.#fixture = fixture
  }

  has(kind: McpMessageKind): boolean {
    return kind in this.#fixture.messages
  }

  /** The problems of `message` as a `kind` of this revision; empty when it is valid. */
  problems(kind: McpMessageKind, message: unknown): string[] {
    if (!this.has(kind)) return [`${this.version} has no ${kind}`]
    const result = this.#schema(kind).safeParse(message)
    return result.success
      ? []
      : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
  }

  #schema(kind: McpMessageKind): z.ZodType {
    let schema = this.#schemas.get(kind)
    if (schema === undefined) {
      schema = z.fromJSONSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        definitions: this.#fixture.definitions,
        $ref: `#/definitions/${kind}`,
      })
      this.#schemas.set(kind, schema)
    }
    return schema
  }
}

/** Every revision there is a fixture for, oldest first. */
export function mcpRevisionSchemas(): McpRevisionSchema[] {
  return readdirSync(DIRECTORY)
    .filter((file) => file.endsWith('.schema.json'))
    .sort()
    .map((file) => new McpRevisionSchema(load(file)))
}

/** The fixture of one revision. */
export function mcpRevisionSchema(version: string): McpRevisionSchema {
  const found = mcpRevisionSchemas().find((schema) => schema.version === version)
  if (found === undefined) throw new Error(`no MCP schema fixture for ${version}`)
  return found
}
