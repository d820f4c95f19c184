import t from 'tap'
import {
  metricValue,
  parseLoadAverage,
  parseProcessStat,
  parseStatusKb,
  parseSystemStat,
} from '../../../bench/lib/proc-parse.js'

void t.test('process stat: times and ppid, even with spaces and parens in the name', async (t) => {
  const fields = Array.from({ length: 50 }, (_, i) => String(i + 3))
  // fields[0] is field 3 (state); ppid is field 4, utime 14, stime 15.
  fields[0] = 'S'
  fields[1] = '42'
  fields[11] = '150'
  fields[12] = '25'
  const text = `1234 (node (worker) x) ${fields.join(' ')}\n`
  t.same(parseProcessStat(text), { ticks: 175, ppid: 42 })
  t.equal(parseProcessStat('garbage'), null)
})

void t.test(
  'system stat: busy is process time (no idle, iowait, irq, softirq, steal)',
  async (t) => {
    const text = 'cpu  100 5 50 1000 20 3 2 7 0 0\ncpu0 50 2 25 500 10 1 1 3 0 0\n'
    t.same(parseSystemStat(text), { busy: 155, steal: 7, total: 1187 })
    t.equal(parseSystemStat('nothing'), null)
  },
)

void t.test('load average and status fields', async (t) => {
  t.same(parseLoadAverage('4.43 8.48 10.31 3/400 1234\n'), [4.43, 8.48, 10.31])
  const status = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n'
  t.equal(parseStatusKb(status, 'VmRSS'), 100 * 1024 * 1024)
  t.equal(parseStatusKb(status, 'VmHWM'), 200 * 1024 * 1024)
  t.ok(Number.isNaN(parseStatusKb('', 'VmRSS')))
})

void t.test('metric values from Prometheus text', async (t) => {
  const text = '# HELP x\nportcullis_heap 123.5\nportcullis_heap_total 9\nlabelled{a="b"} 3\n'
  t.equal(metricValue(text, 'portcullis_heap'), 123.5)
  t.equal(metricValue(text, 'portcullis_heap_total'), 9)
  t.ok(Number.isNaN(metricValue(text, 'missing')))
})
