import { join } from 'node:path'
import { startPostgres, type PostgresServer } from '../../test/helpers/postgres.js'
import { harnessTeardown, tempDir } from '../lib/cleanup.js'
import type { JwtAlgorithm } from '../lib/jwt.js'
import type { Tools } from '../lib/machine.js'
import { repin, type Pinning } from '../lib/pin.js'
import { pidsWithArguments } from '../lib/proc.js'
import type { RunningGateway } from '../systems/gateway.js'
import { startFastifyPeer } from '../systems/fastify.js'
import { startHaproxy } from '../systems/haproxy.js'
import { startNginx } from '../systems/nginx.js'
import type { RunningSystem } from '../systems/system.js'
import { startBareProxy, startKoaProxy, startUpstream } from '../systems/upstream.js'
import type { CredentialKey, SystemKey } from './catalog.js'
import {
  forge,
  jwtMaterial,
  securityKey,
  THROTTLED_ADDRESS,
  unknownServiceToken,
  type JwtMaterial,
} from './credentials.js'
import { startGateways } from './world-gateways.js'

/** A credential as a load generator sends it. */
export interface CredentialSpec {
  readonly headers: Readonly<Record<string, string>>
  readonly tokensFile?: string
  readonly tokenCount?: number
}

/** Everything started for one benchmark run. */
export interface World {
  readonly dir: string
  readonly tools: Tools
  readonly pinning: Pinning
  readonly systems: Map<SystemKey, RunningSystem>
  readonly gateways: Map<SystemKey, RunningGateway>
  /** How to start each system under test again, in a new process (see restartSystem). */
  readonly starters: Map<SystemKey, () => Promise<RunningSystem>>
  readonly credentials: Map<CredentialKey, CredentialSpec>
  /** Keys and tokens of the JWT algorithms the scenarios need. */
  readonly jwt: Map<JwtAlgorithm, JwtMaterial>
  /** Why a system is missing: not installed, or failed to start. */
  readonly unavailable: Map<SystemKey, string>
  readonly securityKey: string
  postgres: PostgresServer | null
  readonly upstream: RunningSystem
}

const ALG_OF: Partial<Record<SystemKey, JwtAlgorithm>> = {
  'gw-rs256': 'RS256',
  'gw-es256': 'ES256',
  'gw-hs256': 'HS256',
}

/**
 * Stops a system under test and starts it again in a new process (new port, same configuration
 * and store). Two processes of one program differ by up to a fifth in CPU per request on this
 * kind of machine, so a row measured in one process for the whole run carries that process's
 * luck; a row measured in a new process each round carries the median of several. A system that
 * fails to start again is dropped from the rest of the run (its rows keep the rounds they had).
 */
export async function restartSystem(
  world: World,
  key: SystemKey,
  log: (line: string) => void,
): Promise<void> {
  const start = world.starters.get(key)
  const running = world.systems.get(key)
  if (start === undefined || running === undefined) return
  await running.stop()
  world.systems.delete(key)
  world.gateways.delete(key)
  try {
    world.systems.set(key, await start())
  } catch (error) {
    world.unavailable.set(key, `failed to start again: ${String(error).split('\n')[0]}`)
    log(`! ${key}: ${String(error)}`)
  }
}

/**
 * The processes of every system but `measured` and the upstream: stopped while `measured` is
 * (bench/lib/pause.ts), so that only its own work runs on the system-under-test CPU.
 */
export function otherSystemPids(world: World, measured: SystemKey): number[] {
  const pids: number[] = []
  for (const [key, system] of world.systems) {
    if (key !== measured && key !== 'upstream') pids.push(...system.pids)
  }
  return pids
}

/** The postmaster and its children, found by the port on their command line. */
export function postgresPids(server: PostgresServer | null): number[] {
  if (server === null) return []
  return pidsWithArguments(['-p', String(server.port), '-k'])
}

export async function buildWorld(
  needed: Set<SystemKey>,
  needPostgres: boolean,
  tools: Tools,
  pinning: Pinning,
  options: { accessLog: boolean; cpuProfileDir?: string; log: (line: string) => void },
): Promise<World> {
  const dir = tempDir('run')
  const log = options.log
  const upstream = await startUpstream(dir, pinning.generator)
  const upstreamPort = Number(new URL(upstream.baseUrl).port)
  const world: World = {
    dir,
    tools,
    pinning,
    systems: new Map([['upstream', upstream]]),
    gateways: new Map(),
    starters: new Map(),
    credentials: new Map([['none', { headers: {} }]]),
    jwt: new Map(),
    unavailable: new Map(),
    securityKey: securityKey(),
    postgres: null,
    upstream,
  }
  world.credentials.set('security-key', {
    headers: { authorization: `Bearer ${world.securityKey}` },
  })
  // One unknown token from one address: after max_failed_lookups failures every answer is 429.
  world.credentials.set('sa-unknown', {
    headers: {
      authorization: `Bearer ${unknownServiceToken()}`,
      'x-forwarded-for': THROTTLED_ADDRESS,
    },
  })

  const jwt = world.jwt
  const algs = new Set<JwtAlgorithm>()
  for (const key of needed) if (ALG_OF[key] !== undefined) algs.add(ALG_OF[key])
  if (needed.has('haproxy-jwt') || needed.has('fastify-rs256')) algs.add('RS256')
  for (const alg of algs) {
    log(`generating ${alg} keys and fresh tokens…`)
    const material = jwtMaterial(alg, dir)
    jwt.set(alg, material)
    const prefix = alg.toLowerCase() as 'rs256' | 'es256' | 'hs256'
    world.credentials.set(`${prefix}-same`, {
      headers: { authorization: `Bearer ${material.repeated}` },
    })
    world.credentials.set(`${prefix}-fresh`, {
      headers: {},
      tokensFile: material.freshFile,
      tokenCount: material.freshCount,
    })
  }

  const attempt = async (key: SystemKey, what: () => Promise<RunningSystem>) => {
    world.starters.set(key, what)
    try {
      world.systems.set(key, await what())
    } catch (error) {
      world.unavailable.set(key, `failed to start: ${String(error).split('\n')[0]}`)
      log(`! ${key}: ${String(error)}`)
    }
  }
  if (needed.has('node-floor')) {
    await attempt('node-floor', () => startBareProxy(dir, upstream.baseUrl, pinning.sut))
  }
  if (needed.has('koa-floor')) {
    await attempt('koa-floor', () =>
      startKoaProxy(dir, upstream.baseUrl, pinning.sut, { cpuProfileDir: options.cpuProfileDir }),
    )
  }
  if (needed.has('nginx')) {
    if (tools.nginx === null)
      world.unavailable.set('nginx', 'nginx not installed (apt-get install nginx)')
    else
      await attempt('nginx', () =>
        startNginx(tools.nginx as string, dir, upstreamPort, pinning.sut),
      )
  }
  for (const key of ['haproxy', 'haproxy-jwt'] as const) {
    if (!needed.has(key)) continue
    if (tools.haproxy === null) {
      world.unavailable.set(key, 'HAProxy not installed (apt-get install haproxy)')
      continue
    }
    const rs = jwt.get('RS256')
    const check =
      key === 'haproxy-jwt' && rs !== undefined
        ? {
            publicKeyPem: rs.key.verification,
            validToken: rs.repeated,
            forgedToken: forge(rs.repeated),
          }
        : undefined
    await attempt(key, () =>
      startHaproxy(tools.haproxy as string, dir, key, upstreamPort, pinning.sut, check),
    )
  }

  const rs256 = jwt.get('RS256')
  if (needed.has('fastify-rs256') && rs256 !== undefined) {
    const check = {
      publicKeyPem: rs256.key.verification,
      validToken: rs256.repeated,
      forgedToken: forge(rs256.repeated),
    }
    await attempt('fastify-rs256', () =>
      startFastifyPeer(dir, upstream.baseUrl, pinning.sut, check),
    )
  }

  if (needPostgres || needed.has('gw-pg')) {
    if (tools.postgres === null) {
      world.unavailable.set(
        'gw-pg',
        'PostgreSQL binaries not found under /usr/lib/postgresql/*/bin',
      )
    } else {
      log('starting a throwaway PostgreSQL…')
      world.postgres = await startPostgres(harnessTeardown)
      // Backends forked later inherit the postmaster's affinity.
      for (const pid of postgresPids(world.postgres)) repin(pinning, pid, pinning.generator)
    }
  }
  await startGateways(world, needed, jwt, {
    accessLog: options.accessLog,
    cpuProfileDir: options.cpuProfileDir,
    log,
    dataDir: (name) => join(dir, `store-${name}`),
  })
  return world
}
