/**
 * The refused-token counter's `account` label: account names, bounded, and two values of its own
 * that no account name can take, so an account named `other` or `unknown` is never merged with
 * the overflow or with tokens no account has.
 */
import { Registry } from 'prom-client'
import t from 'tap'
import { parseMintRequest } from '../../../src/service-accounts/api/mint-request.js'
import {
  createAuditMetrics,
  MAX_REFUSED_ACCOUNT_LABELS,
  OTHER_ACCOUNTS_LABEL,
  RefusedTokenCounter,
  UNKNOWN_ACCOUNT_LABEL,
} from '../../../src/service-accounts/metrics.js'

async function countsByAccount(registry: Registry): Promise<Map<string, number>> {
  const metric = await registry.getSingleMetric('portcullis_audit_refused_tokens_total')?.get()
  return new Map(metric?.values.map((sample) => [String(sample.labels['account']), sample.value]))
}

void t.test('the labels that are not names cannot be minted as names', async (t) => {
  for (const label of [UNKNOWN_ACCOUNT_LABEL, OTHER_ACCOUNTS_LABEL]) {
    t.notOk(parseMintRequest({ name: label }).ok, `${label} is refused as an account name`)
    t.ok(parseMintRequest({ name: label.slice(1, -1) }).ok, `${label.slice(1, -1)} is a name`)
  }
})

void t.test('accounts named other and unknown keep series of their own', async (t) => {
  const registry = new Registry()
  const counter = new RefusedTokenCounter(createAuditMetrics(registry, () => 0).refusedTokens)
  counter.inc('other')
  counter.inc('unknown')
  counter.inc(undefined)
  for (let index = 0; index < MAX_REFUSED_ACCOUNT_LABELS - 2; index++) counter.inc(`bot-${index}`)
  counter.inc('past-the-bound')
  counter.inc('also-past')
  counter.inc('other')
  const counts = await countsByAccount(registry)
  t.equal(counts.get('other'), 2, 'the account named other, twice, once after the bound')
  t.equal(counts.get('unknown'), 1, 'the account named unknown')
  t.equal(counts.get(UNKNOWN_ACCOUNT_LABEL), 1, 'a token no account has')
  t.equal(counts.get(OTHER_ACCOUNTS_LABEL), 2, 'the names past the bound, together')
  t.equal(counts.has('past-the-bound'), false)
  t.equal(counts.size, MAX_REFUSED_ACCOUNT_LABELS + 2, 'the bound, and the two values of its own')
})
