import eslint from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * The layers of src/, lowest first (docs/architecture.md): a module may import from its own
 * layer and the ones below it, never from one above. The foundation is the files directly in
 * src/ (errors, logging, metrics, the principal, memo tables); the composition root is
 * gateway.ts, generation.ts, generations.ts, startup-check.ts, config-reloader.ts, main.ts and cli/.
 */
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
const COMPOSITION_FILES = [
  'gateway',
  'generation',
  'generations',
  'startup-check',
  'config-reloader',
  'main',
]
/** The surfaces' features: each may use surfaces/common/, none another feature. */
const SURFACE_FEATURES = ['mcp', 'a2a', 'agui', 'workflow', 'discovery', 'handlers']

const layerMessage = (layer) =>
  `${layer} may not import from a higher layer (docs/architecture.md, "Layers")`

/** Relative imports that reach a directory of src/ named in `dirs`, from any depth. */
const reaching = (dirs, message) => ({
  regex: `^(\\.\\./)+(${dirs.join('|')})/`,
  message,
})
const reachingRoot = (message) => ({
  regex: `^(\\.\\./)+(${COMPOSITION_FILES.join('|')})\\.js$`,
  message,
})

// The upstream layer is the only code that talks HTTP or WebSocket to the runtime: undici (also
// the identity provider's JWKS fetch, under auth/jwt/remote/) and the ws client.
const UNDICI = {
  name: 'undici',
  message: 'Only src/upstream/ talks HTTP to the runtime (and auth/jwt/remote/ to the IdP).',
}
const WS_CLIENT = {
  name: 'ws',
  importNames: ['WebSocket'],
  allowTypeImports: true,
  message: 'Only src/upstream/ opens WebSockets to the runtime.',
}
const NODE_HTTP_CLIENT = ['node:http', 'node:https', 'http', 'https'].map((name) => ({
  name,
  importNames: ['request', 'get', 'Agent'],
  message: 'The upstream is reached through src/upstream/ (undici), never node:http.',
}))

function importRules(layerIndex, { undici = false, ws = false } = {}) {
  const higher = [...LAYERS.slice(layerIndex + 1), 'cli']
  const name = layerIndex < 0 ? 'the foundation' : LAYERS[layerIndex]
  const message = layerMessage(name)
  const patterns =
    layerIndex < 0
      ? [
          { regex: `^\\./(${[...LAYERS, 'cli'].join('|')})/`, message },
          { regex: `^\\./(${COMPOSITION_FILES.join('|')})\\.js$`, message },
        ]
      : [reaching(higher, message), reachingRoot(message)]
  const paths = [...NODE_HTTP_CLIENT]
  if (!undici) paths.push(UNDICI)
  if (!ws) paths.push(WS_CLIENT)
  return ['error', { paths, patterns }]
}

const IMPORT_RULE = '@typescript-eslint/no-restricted-imports'

const layerConfigs = [
  {
    files: ['src/*.ts'],
    ignores: COMPOSITION_FILES.map((file) => `src/${file}.ts`),
    rules: { [IMPORT_RULE]: importRules(-1) },
  },
  ...LAYERS.map((layer, index) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: {
      [IMPORT_RULE]: importRules(index, { undici: layer === 'upstream', ws: layer === 'upstream' }),
    },
  })),
  {
    files: ['src/auth/jwt/remote/**/*.ts'],
    rules: { [IMPORT_RULE]: importRules(LAYERS.indexOf('auth'), { undici: true }) },
  },
  ...SURFACE_FEATURES.map((feature) => {
    const [rule, options] = importRules(LAYERS.indexOf('surfaces'))
    const others = SURFACE_FEATURES.filter((other) => other !== feature)
    return {
      files: [`src/surfaces/${feature}/**/*.ts`],
      rules: {
        [IMPORT_RULE]: [
          rule,
          {
            ...options,
            patterns: [
              ...options.patterns,
              {
                regex: `^\\.\\./(${others.join('|')})/`,
                message: 'A surface uses surfaces/common/, never another surface.',
              },
            ],
          },
        ],
      },
    }
  }),
  {
    files: ['src/cli/**/*.ts', ...COMPOSITION_FILES.map((file) => `src/${file}.ts`)],
    rules: { [IMPORT_RULE]: ['error', { paths: [...NODE_HTTP_CLIENT, UNDICI, WS_CLIENT] }] },
  },
]

// Names of secrets as AgentOS and this gateway spell them; `key` only as a private field.
const SECRET =
  'secret|security_?key|\\btoken\\b|tokenhash|\\bhash\\b|digest|password|signature|checksum|credential'
const secretOperand = (side) =>
  [
    `[${side}.name=/${SECRET}/i]`,
    `[${side}.property.name=/${SECRET}/i]`,
    `[${side}.property.type='PrivateIdentifier'][${side}.property.name='key']`,
    `[${side}.callee.name=/${SECRET}/i]`,
  ].join(', ')
const plainOperand = (side) =>
  [
    `[${side}.type=/^(Literal|TemplateLiteral|UnaryExpression)$/]`,
    `[${side}.name=/^(undefined|NOT_RESPONSIBLE)$/]`,
  ].join(', ')

/**
 * What src/ must never do, checked on the syntax tree (SECURITY.md). A reviewed exception is an
 * `eslint-disable-next-line no-restricted-syntax -- <why>` on its line.
 */
const SECURITY_SELECTORS = [
  ...['Literal[value=/user[-_]?agent/i]', 'TemplateElement[value.raw=/user[-_]?agent/i]'].map(
    (selector) => ({
      selector,
      message: "No decision reads the User-Agent: any client can send a probe's (SECURITY.md).",
    }),
  ),
  ...['Identifier', 'PrivateIdentifier'].map((node) => ({
    selector: `${node}[name=/user[-_]?agent/i]`,
    message: "No decision reads the User-Agent: any client can send a probe's (SECURITY.md).",
  })),
  {
    selector: "Property[key.name='insecureHTTPParser']:not([value.value=false])",
    message: "Node's lenient HTTP parser is never enabled: it lets smuggled requests through.",
  },
  {
    selector: "AssignmentExpression > MemberExpression.left[property.name='insecureHTTPParser']",
    message: "Node's lenient HTTP parser is never enabled: it lets smuggled requests through.",
  },
  ...[
    'Literal[value=/insecure-http-parser/i]',
    'TemplateElement[value.raw=/insecure-http-parser/i]',
  ].map((selector) => ({
    selector,
    message: "Node's lenient HTTP parser is never enabled: it lets smuggled requests through.",
  })),
  {
    selector: `BinaryExpression[operator=/^[!=]==?$/]:not(${plainOperand('left')}):not(${plainOperand('right')}):matches(${secretOperand('left')}, ${secretOperand('right')})`,
    message:
      'Secrets are compared with safeEqual (auth/constant-time.ts), never ===: the time of === tells how much matched.',
  },
  {
    selector: `CallExpression[callee.property.name='equals']:matches(${secretOperand('callee.object')}, [arguments.0.name=/${SECRET}/i], [arguments.0.property.name=/${SECRET}/i])`,
    message:
      'Secrets are compared with safeEqual (auth/constant-time.ts), never .equals(): it stops at the first difference.',
  },
  {
    selector: "Identifier[name='timingSafeEqual']",
    message:
      'Constant-time comparisons live in auth/constant-time.ts: use safeEqual or equalDigests.',
  },
]

export default tseslint.config(
  {
    ignores: [
      'dist/',
      '.build/',
      'node_modules/',
      '.tap/',
      'coverage/',
      'helm/',
      'data/',
      'scratch/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    // A reviewed exception (`eslint-disable-next-line … -- why`) that no longer applies fails.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  ...layerConfigs,
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...SECURITY_SELECTORS] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
)
