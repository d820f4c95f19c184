import t from 'tap'
import { isLoopbackHost } from '../../../../../src/config/loopback-host.js'
import { ipLiteral, isNonPublicAddress } from '../../../../../src/auth/jwt/remote/address-policy.js'
import {
  boundedLifetime,
  providerLifetime,
  refreshDelaySeconds,
  retryDelaySeconds,
} from '../../../../../src/auth/jwt/remote/freshness.js'

void t.test('Cache-Control: max-age less Age; no-cache and no-store mean now', async (t) => {
  const cases: [string | undefined, string | undefined, number | undefined][] = [
    [undefined, undefined, undefined],
    ['public, max-age=600', undefined, 600],
    ['max-age=600, must-revalidate', '100', 500],
    ['MAX-AGE=60', undefined, 60],
    ['max-age="120"', undefined, 120],
    ['max-age=60', '90', 0],
    ['no-cache', undefined, 0],
    ['no-store, max-age=600', undefined, 0],
    ['public, stale-while-revalidate=15', undefined, undefined],
    ['max-age=-5', undefined, undefined],
    ['max-age=abc', undefined, undefined],
    ['max-age=600', 'soon', 600],
  ]
  for (const [cacheControl, age, expected] of cases) {
    t.equal(providerLifetime(cacheControl, age), expected, `${cacheControl} / Age ${age}`)
  }
})

void t.test('lifetimes within the bounds; refresh before expiry; retries back off', async (t) => {
  const bounds = { minSeconds: 60, maxSeconds: 3_600 }
  t.equal(boundedLifetime(undefined, bounds), 3_600)
  t.equal(boundedLifetime(5, bounds), 60)
  t.equal(boundedLifetime(600, bounds), 600)
  t.equal(boundedLifetime(100_000, bounds), 3_600)
  t.equal(refreshDelaySeconds(600, bounds), 480)
  t.equal(refreshDelaySeconds(60, bounds), 60)
  t.equal(refreshDelaySeconds(70, bounds), 60)
  t.same(
    [1, 2, 3, 4, 5, 6, 7, 8, 100].map((failures) => retryDelaySeconds(failures, bounds)),
    [1, 2, 4, 8, 16, 32, 60, 60, 60],
  )
})

void t.test('non-public addresses are recognised, IPv4-mapped IPv6 included', async (t) => {
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
  ]) {
    t.ok(isNonPublicAddress(address), `${address} is not public`)
  }
  for (const address of [
    '8.8.8.8',
    '172.32.0.1',
    '1.1.1.1',
    '2606:4700:4700::1111',
    'idp.example',
  ]) {
    t.notOk(isNonPublicAddress(address), `${address} is public (or a name)`)
  }
})

void t.test('loopback hosts and IP literals', async (t) => {
  for (const host of [
    'localhost',
    'LOCALHOST',
    'idp.localhost',
    '127.0.0.1',
    '127.8.9.10',
    '[::1]',
  ]) {
    t.ok(isLoopbackHost(host), host)
  }
  for (const host of ['localhost.example.com', '10.0.0.1', '[::2]', 'keycloak']) {
    t.notOk(isLoopbackHost(host), host)
  }
  t.equal(ipLiteral('[::1]'), '::1')
  t.equal(ipLiteral('10.0.0.1'), '10.0.0.1')
  t.equal(ipLiteral('idp.example'), undefined)
})
