import { readFileSync } from 'node:fs'
import t from 'tap'
import { withReasonsTable } from '../../../scripts/reasons-table.js'
import { GatewayError } from '../../../src/errors.js'
import {
  REASON_AREAS,
  REASONS,
  reasonArea,
  reasonCode,
  reasonStage,
  reasonText,
  type Reason,
} from '../../../src/reasons.js'
import { METRICS_DOC } from './metrics-catalogue.js'

void t.test('docs/metrics.md lists the reason table as src/reasons.ts has it', async (t) => {
  const doc = readFileSync(METRICS_DOC, 'utf8')
  t.equal(
    doc,
    withReasonsTable(doc),
    'up to date (run `npm run gen` after changing src/reasons.ts)',
  )
  for (const reason of Object.keys(REASONS)) t.ok(doc.includes(`| \`${reason}\` |`), reason)
})

void t.test('reason codes are `area.reason` in lower snake case', async (t) => {
  for (const reason of Object.keys(REASONS))
    t.match(reason, /^([a-z][a-z_]*\.[a-z][a-z0-9_]*|internal)$/, reason)
})

void t.test('the check fails for a doc that lacks a reason or carries a stale one', async (t) => {
  const doc = readFileSync(METRICS_DOC, 'utf8')
  const withoutOne = doc.replace(/^\| `jwt\.expired` \|.*\n/m, '')
  t.not(withoutOne, doc, 'the row was there')
  t.not(withReasonsTable(withoutOne), withoutOne, 'an undocumented reason is a stale doc')
  const stale = doc.replace('| `jwt.expired` |', '| `jwt.expired_long_ago` |')
  t.not(withReasonsTable(stale), stale, 'a reason the table does not have is a stale doc')
})

void t.test('every reason comes from one step, by its area', async (t) => {
  t.equal(reasonStage('jwt.expired'), 'authentication')
  t.equal(reasonStage('credential.missing'), 'authentication')
  t.equal(reasonStage('service_account.throttled'), 'authentication')
  t.equal(reasonStage('rbac.scope'), 'authorization')
  t.equal(reasonStage('upstream.dns'), 'upstream')
  t.equal(reasonStage('internal'), 'gateway')
  for (const reason of Object.keys(REASONS) as Reason[])
    t.ok(Object.hasOwn(REASON_AREAS, reasonArea(reason)), `${reason} has a placed area`)
})

void t.test(
  'a reason names the code it is answered with, and only that code takes it',
  async (t) => {
    t.equal(reasonCode('jwt.expired'), 'TOKEN_EXPIRED')
    t.equal(reasonCode('path.dot_lookalike'), 'INVALID_PATH')
    t.equal(reasonCode('client.gone'), null, 'a cut stream is no error response')
    t.equal(reasonText('rbac.scope'), 'the principal lacks a scope the route requires')
    const error = new GatewayError('TOKEN_EXPIRED', 'Token has expired', { reason: 'jwt.expired' })
    t.equal(error.status, 401)
    const doc = readFileSync(METRICS_DOC, 'utf8')
    t.match(doc, '| `jwt.expired` | authentication | `TOKEN_EXPIRED` (401) |', 'the doc says so')
  },
)

// Checked by the compiler, not at run time: `npm test` type-checks first, and tsc fails on an
// expect-error directive that has no error to expect.
export function mismatchedCode(): GatewayError {
  // @ts-expect-error: a path reason is answered with INVALID_PATH, never TOKEN_INVALID
  return new GatewayError('TOKEN_INVALID', 'Invalid token', { reason: 'path.characters' })
}
