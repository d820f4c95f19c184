import t from 'tap'
import { lintAs } from '../../helpers/lint.js'

// Lowest first, as docs/architecture.md ("Layers") and eslint.config.js order them.
const LAYERS = [
  'policy',
  'config',
  'inbound',
  'auth',
  'service-accounts',
  'upstream',
  'identity',
  'http',
  'surfaces',
]
const HIGHER = /may not import from a higher layer/

void t.test('every layer may import its own and lower layers, never a higher one', async (t) => {
  for (const [index, layer] of LAYERS.entries()) {
    const file = `src/${layer}/probe.ts`
    for (const [other, target] of LAYERS.map((name, position) => [position, name] as const)) {
      const code = `import type { X } from '../${target}/module.js'\nexport type Y = X`
      const messages = await lintAs(file, code)
      if (other > index) t.match(messages, [HIGHER], `${layer} → ${target} refused`)
      else t.same(messages, [], `${layer} → ${target} allowed`)
    }
    t.match(
      await lintAs(file, "import type { X } from '../generation.js'\nexport type Y = X"),
      [HIGHER],
      `${layer} → the composition root refused`,
    )
    t.match(
      await lintAs(file, "import type { X } from '../cli/program.js'\nexport type Y = X"),
      [HIGHER],
      `${layer} → cli refused`,
    )
  }
})

void t.test('deeper files are held to their layer too', async (t) => {
  const code = "import type { X } from '../../../http/state.js'\nexport type Y = X"
  t.match(await lintAs('src/auth/jwt/remote/probe.ts', code), [HIGHER])
  t.same(
    await lintAs('src/surfaces/mcp/probe.ts', code.replace('../../../', '../../')),
    [],
    'surfaces sit above http',
  )
})

void t.test('the foundation imports nothing but the foundation', async (t) => {
  for (const target of [
    './policy/scope.js',
    './http/state.js',
    './gateway.js',
    './cli/program.js',
  ]) {
    const messages = await lintAs(
      'src/errors.ts',
      `import type { X } from '${target}'\nexport type Y = X`,
    )
    t.match(messages, [HIGHER], target)
  }
  t.same(await lintAs('src/errors.ts', "import { redact } from './redact.js'\nredact()"), [])
  t.same(
    await lintAs('src/gateway.ts', "import type { X } from './http/state.js'\nexport type Y = X"),
    [],
    'the composition root imports anything',
  )
})

void t.test('a surface uses surfaces/common/, never another surface', async (t) => {
  const features = ['mcp', 'a2a', 'agui', 'workflow', 'discovery']
  for (const feature of features) {
    for (const other of features.filter((name) => name !== feature)) {
      const code = `import type { X } from '../${other}/module.js'\nexport type Y = X`
      t.match(
        await lintAs(`src/surfaces/${feature}/probe.ts`, code),
        [/never another surface/],
        `${feature} → ${other} refused`,
      )
    }
  }
  const common = "import type { X } from '../common/json.js'\nexport type Y = X"
  t.same(await lintAs('src/surfaces/mcp/probe.ts', common), [])
})

void t.test('only src/upstream/ talks HTTP or WebSocket to the runtime', async (t) => {
  const undici = "import { request } from 'undici'\nvoid request"
  const ws = "import { WebSocket } from 'ws'\nvoid WebSocket"
  const outside = [
    ...LAYERS.filter((layer) => layer !== 'upstream').map((layer) => `src/${layer}/probe.ts`),
    'src/surfaces/common/probe.ts',
    'src/surfaces/mcp/probe.ts',
    'src/probe.ts',
    'src/generation.ts',
    'src/cli/probe.ts',
  ]
  for (const file of outside) {
    t.match(await lintAs(file, undici), [/Only src\/upstream\//], `${file}: undici`)
    t.match(await lintAs(file, ws), [/Only src\/upstream\//], `${file}: ws client`)
  }
  t.same(await lintAs('src/upstream/probe.ts', undici), [])
  t.same(await lintAs('src/upstream/probe.ts', ws), [])
  t.same(await lintAs('src/auth/jwt/remote/probe.ts', undici), [], 'the IdP fetch')
  t.same(
    await lintAs(
      'src/http/probe.ts',
      "import type { WebSocket } from 'ws'\nexport type Y = WebSocket",
    ),
    [],
    'the type of a client socket is fine',
  )
  t.match(await lintAs('src/http/probe.ts', "import { request } from 'node:http'\nvoid request"), [
    /never node:http/,
  ])
})
