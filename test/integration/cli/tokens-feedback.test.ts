/**
 * What `portcullis tokens` tells an operator: a refused request is one line in words (the first
 * validation problem, not the raw 422 body), `--json` gives the gateway's body as it came, and a
 * scope AgentOS does not define is minted (as AgentOS mints it) with a warning naming the
 * likely intended scope.
 */
import t from 'tap'
import { Child, childEnv, tsxArgs } from '../../helpers/child-process.js'
import { startGateway, type Teardown } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

const KEY = 'tokens-feedback-test-security-key-012345'

const runtime = await startRuntime(t)
const gateway = await startGateway(t, {
  upstream: { url: runtime.url },
  auth: { security_key: KEY },
})
const env = { OS_SECURITY_KEY: KEY, PORTCULLIS_URL: gateway.url }

/** Runs `portcullis tokens <args>` (the real CLI, from source) to completion. */
async function portcullis(t: Teardown, args: string[]) {
  const child = new Child(t, tsxArgs('src/main.ts', 'tokens', ...args), childEnv(env))
  const { code } = await child.exit(90_000)
  return { code, stdout: child.stdout, stderr: child.stderr }
}

// Each run compiles the CLI from source: all three start at once.
const [words, json, created] = await Promise.all([
  portcullis(t, ['create', 'Bad Name', '--expires', '0']),
  portcullis(t, ['create', 'Bad Name', '--expires', '0', '--json']),
  portcullis(t, [
    'create',
    'typo-bot',
    '--scopes',
    'agents:wrte',
    'agents:a1:rn',
    'sessions:read',
    'reports:read',
    '--json',
  ]),
])

const SLUG_RULE =
  "name must be a lowercase slug: a letter or digit, then up to 62 of a-z, 0-9, '_' or '-'"

void t.test(
  'a refused mint: one line in words; --json: the body as the gateway sent it',
  async (t) => {
    t.equal(words.code, 1)
    t.same(words.stderr, [
      `portcullis: mint failed (422): ${SLUG_RULE} (got "Bad Name") (and 1 more problem(s); --json lists all)`,
    ])
    t.same(words.stdout, [], 'nothing on standard output')

    t.equal(json.code, 1)
    const body = JSON.parse(json.stdout.join('\n')) as {
      detail: { type: string; loc: unknown[] }[]
    }
    t.same(
      body.detail.map((issue) => [issue.type, issue.loc]),
      [
        ['value_error', ['body', 'name']],
        ['greater_than_equal', ['body', 'expires_in_days']],
      ],
      'every problem, as FastAPI words them',
    )
    t.equal(json.stderr.length, 1, 'and the one line on standard error')
  },
)

void t.test('a scope AgentOS does not define: minted, with a warning', async (t) => {
  t.equal(created.code, 0, created.stderr.join('\n'))
  t.same(created.stderr, [
    'portcullis: warning: agents:wrte is not a scope AgentOS defines; did you mean agents:write?',
    'portcullis: warning: agents:a1:rn is not a scope AgentOS defines; did you mean agents:a1:run?',
    'portcullis: warning: reports:read is not a scope AgentOS defines',
  ])
  const account = JSON.parse(created.stdout.join('\n')) as { scopes: { raw: string }[] }
  t.same(
    account.scopes.map((scope) => scope.raw),
    ['agents:wrte', 'agents:a1:rn', 'sessions:read', 'reports:read'],
    'the API accepts them, as AgentOS does',
  )
})
