import { readFileSync } from 'node:fs'
import t from 'tap'
import type { z } from 'zod'
import { renderConfigurationReference } from '../../../scripts/config-reference.js'
import { ENV_BINDINGS } from '../../../src/config/env.js'
import { configSchema } from '../../../src/config/schema.js'
import { projectPath } from '../../helpers/project-root.js'

const DOC = projectPath('docs/configuration.md')

interface Def {
  type: string
  innerType?: z.ZodType
  in?: z.ZodType
  shape?: Record<string, z.ZodType>
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { def: Def }).def

/**
 * Every key path of the schema, walked from the zod definitions themselves (independently of the
 * JSON-Schema conversion the generator uses). Defaults, prefaults, optionals and transforms are
 * looked through; a nullable or a union is a leaf, as the reference documents it as one key.
 */
function keyPaths(schema: z.ZodType, prefix: string): string[] {
  let node = schema
  for (;;) {
    const def = defOf(node)
    if (def.type === 'default' || def.type === 'prefault' || def.type === 'optional')
      node = def.innerType as z.ZodType
    else if (def.type === 'pipe') node = def.in as z.ZodType
    else break
  }
  const def = defOf(node)
  if (def.type !== 'object' || def.shape === undefined) return [prefix]
  return Object.entries(def.shape).flatMap(([key, child]) =>
    keyPaths(child, prefix === '' ? key : `${prefix}.${key}`),
  )
}

const documented = (text: string): string[] =>
  [...text.matchAll(/^\| `([a-z0-9_]+(?:\.[a-z0-9_]+)+)` \|/gm)].map((match) => match[1] as string)

void t.test('docs/configuration.md is what the generator renders from the schema', async (t) => {
  const onDisk = readFileSync(DOC, 'utf8')
  t.equal(
    onDisk,
    renderConfigurationReference(),
    'up to date (run `npm run gen` after a schema change)',
  )
})

void t.test('every schema key is documented, and every documented key exists', async (t) => {
  const text = readFileSync(DOC, 'utf8')
  const paths = keyPaths(configSchema, '')
  t.ok(paths.length > 40, `${paths.length} key paths found in the schema`)
  for (const section of [
    'server',
    'upstream',
    'auth',
    'service_accounts',
    'database',
    'audit',
    'cors',
    'logging',
  ]) {
    t.ok(
      paths.some((path) => path.startsWith(`${section}.`)),
      `section ${section} walked`,
    )
    t.match(text, new RegExp(`^## \`${section}\`$`, 'm'), `section ${section} has a heading`)
  }
  const rows = documented(text)
  for (const path of paths) t.ok(rows.includes(path), `${path} is documented`)
  for (const row of rows) t.ok(paths.includes(row), `documented ${row} exists in the schema`)
  for (const binding of ENV_BINDINGS) {
    t.match(text, `\`${binding.env}\``, `${binding.env} is documented`)
    t.ok(paths.includes(binding.path.join('.')), `${binding.env} binds an existing key`)
  }
})

void t.test('the generated reference states defaults, types and descriptions', async (t) => {
  const rendered = renderConfigurationReference()
  t.match(rendered, '| `server.port` | integer 0–65535 | `8080` | `PORTCULLIS_PORT` |')
  t.match(
    rendered,
    '| `upstream.url` | string | `"http://127.0.0.1:7777"` | `PORTCULLIS_UPSTREAM_URL` |',
  )
  t.match(
    rendered,
    /\| `auth\.security_key` \| string \(\*secret\*\)[^|]* \| unset \| `OS_SECURITY_KEY` \|/,
  )
  t.match(rendered, '| `JWT_VERIFICATION_KEY` | `auth.verification_keys` (appended) |')
  for (const line of rendered.split('\n').filter((row) => /^\| `[a-z0-9_]+\./.test(row))) {
    const description = line.split(' | ').at(-1) ?? ''
    t.ok(
      description.replace(/\|$/, '').trim().length > 0,
      `${line.slice(0, 60)}… has a description`,
    )
  }
})
