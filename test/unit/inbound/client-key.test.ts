import t from 'tap'
import { throttleKey } from '../../../src/inbound/client-key.js'

void t.test('IPv4 addresses are keys as they are', async (t) => {
  t.equal(throttleKey('198.51.100.7'), '198.51.100.7')
  t.not(throttleKey('198.51.100.7'), throttleKey('198.51.100.8'))
})

void t.test('IPv4-mapped IPv6 counts as the IPv4 address', async (t) => {
  t.equal(throttleKey('::ffff:198.51.100.7'), '198.51.100.7')
  t.equal(throttleKey('::FFFF:198.51.100.7'), '198.51.100.7')
  t.equal(throttleKey('::ffff:c633:6407'), '198.51.100.7')
  t.equal(throttleKey('0:0:0:0:0:ffff:198.51.100.7'), '198.51.100.7')
})

void t.test('IPv6 addresses are grouped by /64', async (t) => {
  const key = '2001:db8:1:2::/64'
  t.equal(throttleKey('2001:db8:1:2::1'), key)
  t.equal(throttleKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), key)
  t.equal(throttleKey('2001:0DB8:0001:0002:0000:0000:0000:0009'), key, 'spelling does not matter')
  t.equal(throttleKey('[2001:db8:1:2::5]'), key)
  t.equal(throttleKey('2001:db8:1:2::ab%eth0'), key, 'zone ids ignored')
  t.not(throttleKey('2001:db8:1:3::1'), key)
  t.equal(throttleKey('::1'), '0:0:0:0::/64')
  t.equal(throttleKey('64:ff9b::198.51.100.7'), '64:ff9b:0:0::/64')
  t.equal(throttleKey('fe80::1'), 'fe80:0:0:0::/64')
})

void t.test('anything else is its own key', async (t) => {
  t.equal(throttleKey(''), 'unknown')
  t.equal(throttleKey('unknown'), 'unknown')
  t.equal(throttleKey('not-an-ip'), 'not-an-ip')
})
