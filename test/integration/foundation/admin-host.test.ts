/**
 * The admin listener (unauthenticated /metrics) binds loopback unless told otherwise: reachable on
 * 127.0.0.1, not on the machine's other addresses; `PORTCULLIS_ADMIN_HOST` (or
 * `server.admin_host`) opens it where probes and Prometheus reach it.
 */
import { connect } from 'node:net'
import { networkInterfaces } from 'node:os'
import t from 'tap'
import { parseConfig } from '../../../src/config/load.js'
import { createGateway } from '../../../src/gateway.js'
import { createLogger } from '../../../src/logger.js'
import type { Teardown } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

/** This machine's first address that is not loopback, if it has one. */
const OTHER_ADDRESS = Object.values(networkInterfaces())
  .flat()
  .find(
    (address) => address !== undefined && !address.internal && address.family === 'IPv4',
  )?.address

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** A gateway from a config file that names no admin host, with `env` applied. */
async function gatewayWithout(t: Teardown, upstream: string, env: Record<string, string>) {
  const config = parseConfig(
    [
      'server: {host: 127.0.0.1, port: 0, admin_port: 0}',
      `upstream: {url: "${upstream}"}`,
      'auth: {security_key: admin-host-test-security-key-0123456789}',
      'service_accounts: {enabled: false}',
    ].join('\n'),
    'admin-host test',
    { env, readFile: () => '' },
  )
  const gateway = await createGateway(config, {
    logger: createLogger({ level: 'silent' }),
    collectProcessMetrics: false,
  })
  const running = await gateway.start()
  t.teardown(() => gateway.stop())
  return { config, running }
}

void t.test('by default the admin listener is on loopback only', async (t) => {
  const runtime = await startRuntime(t)
  const { config, running } = await gatewayWithout(t, runtime.url, {})
  t.equal(config.server.admin_host, '127.0.0.1')
  t.equal(running.adminUrl, `http://127.0.0.1:${running.adminPort}`)
  t.equal((await fetch(`${running.adminUrl}/healthz`)).status, 200, 'reachable on 127.0.0.1')
  if (OTHER_ADDRESS === undefined) {
    t.comment('no address other than loopback on this machine: the outside view is not checked')
    return
  }
  t.equal(await reachable(OTHER_ADDRESS, running.adminPort), false, `not on ${OTHER_ADDRESS}`)
})

void t.test('PORTCULLIS_ADMIN_HOST opens it on the address given', async (t) => {
  const runtime = await startRuntime(t)
  const { config, running } = await gatewayWithout(t, runtime.url, {
    PORTCULLIS_ADMIN_HOST: '0.0.0.0',
  })
  t.equal(config.server.admin_host, '0.0.0.0')
  t.equal(await reachable('127.0.0.1', running.adminPort), true)
  if (OTHER_ADDRESS !== undefined)
    t.equal(await reachable(OTHER_ADDRESS, running.adminPort), true, `on ${OTHER_ADDRESS} too`)
})
