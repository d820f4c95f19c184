import t from 'tap'
import {
  addCounts,
  mean,
  median,
  otherThan,
  percentile,
  ratio,
  sumValues,
} from '../../../bench/lib/stats.js'

void t.test('median of odd and even lists, ignoring NaN', async (t) => {
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([4, 1, 3, 2]), 2.5)
  t.equal(median([5, Number.NaN, 1]), 3)
  t.ok(Number.isNaN(median([])))
})

void t.test('percentile by nearest rank', async (t) => {
  const values = Array.from({ length: 100 }, (_, i) => i + 1)
  t.equal(percentile(values, 50), 50)
  t.equal(percentile(values, 99), 99)
  t.equal(percentile(values, 100), 100)
  t.equal(percentile(values, 0), 1)
  t.equal(percentile([7], 99), 7)
  t.equal(percentile([5, 1, 3], 50), 3, 'unsorted input')
  t.ok(Number.isNaN(percentile([], 50)))
})

void t.test('ratio is null when unknown or dividing by zero', async (t) => {
  t.equal(ratio(10, 4), 2.5)
  t.equal(ratio(null, 4), null)
  t.equal(ratio(4, undefined), null)
  t.equal(ratio(4, 0), null)
  t.equal(ratio(Number.NaN, 2), null)
})

void t.test('mean and sums', async (t) => {
  t.equal(mean([1, 2, 3]), 2)
  t.ok(Number.isNaN(mean([])))
  t.equal(sumValues({ '200': 3, '401': 2 }), 5)
})

void t.test('counts per status: added up, and those other than the expected one', async (t) => {
  const total = addCounts({ '429': 1 }, { '429': 2, '401': 20 })
  t.same(total, { '429': 3, '401': 20 })
  t.equal(otherThan(total, 429), 20)
  t.equal(otherThan(total, 200), 23)
  t.equal(otherThan({}, 200), 0)
})
