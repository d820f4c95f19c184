import type { JwtAlgorithm } from '../lib/jwt.js'
import { startGateway, type GatewayAuth, type GatewaySetup } from '../systems/gateway.js'
import { prepareStore, type StoreTarget } from '../systems/store.js'
import type { CredentialKey, SystemKey } from './catalog.js'
import type { JwtMaterial } from './credentials.js'
import type { World } from './world.js'

export interface GatewayOptions {
  readonly accessLog: boolean
  readonly cpuProfileDir?: string
  readonly log: (line: string) => void
  readonly dataDir: (name: string) => string
}

interface Plan {
  readonly key: SystemKey
  readonly name: string
  readonly auth: GatewayAuth
  readonly store: StoreTarget
  readonly cacheTtlSeconds: number
  readonly accessLog: boolean
  /** The service-account credential seeded into its store, if any. */
  readonly seeds?: CredentialKey
}

/** Starts the gateways the scenarios need, each with a seeded store and its own config. */
export async function startGateways(
  world: World,
  needed: Set<SystemKey>,
  jwt: Map<JwtAlgorithm, JwtMaterial>,
  options: GatewayOptions,
): Promise<void> {
  const securityKey: GatewayAuth = { kind: 'security_key', key: world.securityKey }
  const embedded = (name: string): StoreTarget => ({
    kind: 'embedded',
    dataDir: options.dataDir(name),
  })
  const plans: Plan[] = [
    {
      key: 'gw-main',
      name: 'main',
      auth: securityKey,
      store: embedded('main'),
      cacheTtlSeconds: 30,
      accessLog: options.accessLog,
      seeds: 'sa-main',
    },
    {
      key: 'gw-log',
      name: 'log',
      auth: securityKey,
      store: embedded('log'),
      cacheTtlSeconds: 30,
      // Turned off and on by the access-log scenarios (a reload before each measurement).
      accessLog: true,
      seeds: 'sa-log',
    },
  ]
  for (const [key, alg] of [
    ['gw-rs256', 'RS256'],
    ['gw-es256', 'ES256'],
    ['gw-hs256', 'HS256'],
  ] as const) {
    const material = jwt.get(alg)
    if (material === undefined) continue
    plans.push({
      key,
      name: alg.toLowerCase(),
      auth: { kind: 'jwt', alg, verification: material.key.verification },
      store: embedded(alg.toLowerCase()),
      cacheTtlSeconds: 30,
      accessLog: options.accessLog,
    })
  }
  if (world.postgres !== null) {
    plans.push({
      key: 'gw-pg',
      name: 'pg-nocache',
      auth: securityKey,
      store: { kind: 'postgres', url: await world.postgres.createDatabase() },
      cacheTtlSeconds: 0,
      accessLog: options.accessLog,
      seeds: 'sa-pg',
    })
  }
  for (const plan of plans) {
    if (!needed.has(plan.key) || world.unavailable.has(plan.key)) continue
    options.log(`starting gateway ${plan.name}…`)
    try {
      if (plan.seeds !== undefined) {
        const [account] = await prepareStore(plan.store, 1, `bench-${plan.name}`)
        world.credentials.set(plan.seeds, {
          headers: { authorization: `Bearer ${account?.token ?? ''}` },
        })
      }
      const setup: GatewaySetup = {
        name: plan.name,
        upstreamUrl: world.upstream.baseUrl,
        auth: plan.auth,
        store: plan.store,
        cacheTtlSeconds: plan.cacheTtlSeconds,
        cacheMaxEntries: 100_000,
        accessLog: plan.accessLog,
        cpuProfileDir: options.cpuProfileDir,
      }
      const start = async () => {
        const gateway = await startGateway(setup, world.dir, world.pinning.sut)
        world.gateways.set(plan.key, gateway)
        return gateway
      }
      world.starters.set(plan.key, start)
      world.systems.set(plan.key, await start())
    } catch (error) {
      world.unavailable.set(plan.key, `failed to start: ${String(error).split('\n')[0]}`)
      options.log(`! gateway ${plan.name}: ${String(error)}`)
    }
  }
}
