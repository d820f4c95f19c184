import t from 'tap'
import { hostnameOf, McpHostGuard } from '../../../../src/surfaces/mcp/host-guard.js'

void t.test('hostnames without ports, IPv6 brackets kept', async (t) => {
  t.equal(hostnameOf('Example.COM:8080'), 'example.com')
  t.equal(hostnameOf('[::1]:7777'), '[::1]')
  t.equal(hostnameOf('localhost'), 'localhost')
})

void t.test('open: localhost only; configured hosts and origins', async (t) => {
  const open = new McpHostGuard({ open: true, allowedHosts: null, allowedOrigins: [] })
  t.equal(open.check({ host: '127.0.0.1:8080' }), undefined)
  t.equal(open.check({ host: '[::1]:1' }), undefined)
  t.same(open.check({ host: 'evil.example' }), {
    error: 'invalid_host',
    detail: 'Host not allowed.',
  })
  t.same(open.check({}), { error: 'invalid_host', detail: 'Host not allowed.' }, 'no Host')
  t.same(open.check({ host: 'localhost', origin: 'https://evil.example' }), {
    error: 'invalid_origin',
    detail: 'Origin not allowed.',
  })
  t.equal(open.check({ host: 'localhost', origin: 'http://localhost:3000' }), undefined)
  t.match(open.check({ host: 'localhost', origin: 'null' }), { error: 'invalid_origin' })

  const closed = new McpHostGuard({ open: false, allowedHosts: null, allowedOrigins: [] })
  t.equal(closed.check({ host: 'evil.example' }), undefined, 'inactive with credentials')

  const listed = new McpHostGuard({
    open: false,
    allowedHosts: ['mcp.example.com:443', '*.internal.test'],
    allowedOrigins: ['https://app.example'],
  })
  t.equal(listed.check({ host: 'mcp.example.com' }), undefined)
  t.equal(listed.check({ host: 'a.b.internal.test' }), undefined)
  t.match(listed.check({ host: 'internal.test.evil' }), { error: 'invalid_host' })
  t.equal(listed.check({ host: 'mcp.example.com', origin: 'https://app.example' }), undefined)
})
