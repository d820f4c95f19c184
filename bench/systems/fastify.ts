import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkVerification, type JwtCheck } from './jwt-check.js'
import type { RunningSystem } from './system.js'
import { startNodeServer } from './upstream.js'

const FASTIFY_PEER = fileURLToPath(new URL('../upstream/fastify-peer.ts', import.meta.url))

/**
 * The Fastify peer (bench/upstream/fastify-peer.ts) checking RS256 tokens against `jwt`'s key;
 * proven to refuse a forged and a missing token before it is measured.
 */
export async function startFastifyPeer(
  dir: string,
  upstreamUrl: string,
  cpus: string | null,
  jwt: JwtCheck,
): Promise<RunningSystem> {
  const keyFile = join(dir, 'fastify-rs256-public.pem')
  writeFileSync(keyFile, jwt.publicKeyPem)
  const name = 'fastify-rs256'
  const authorization = { authorization: `Bearer ${jwt.validToken}` }
  const system = await startNodeServer(name, FASTIFY_PEER, [upstreamUrl, keyFile], dir, cpus, {
    headers: authorization,
  })
  try {
    await checkVerification(system.baseUrl, jwt, 'The Fastify peer')
  } catch (error) {
    await system.stop()
    throw error
  }
  return system
}
